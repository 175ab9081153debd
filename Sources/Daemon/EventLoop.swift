import CSystemd
import Glibc
import SystemCalls
import SystemPackage

/// The daemon's single event loop: owns an `sd_event` and every descriptor, timer and
/// signal watched on it. Not thread-safe: use it from the thread that runs it.
public final class EventLoop {
    let handle: OpaquePointer
    private var signalPipe: IOWatch?
    /// This loop's signal pipe (both ends), closed with the loop.
    private(set) var signalPipeEnds: (read: FileDescriptor, write: FileDescriptor)?
    private var signalWatches: [Weak<SignalWatch>] = []

    /// A new loop (not the thread's default one, so tests can run several).
    public init() throws(SystemError) {
        var event: OpaquePointer?
        try SystemCall.negatedErrnoBlocking("sd_event_new") { sd_event_new(&event) }
        guard let event else { throw SystemError(.noMemory, call: "sd_event_new") }
        handle = event
    }

    deinit {
        signalPipe?.cancel()
        if let ends = signalPipeEnds {
            // Signals go nowhere rather than to a descriptor number that may be reused.
            SignalForwarding.stopForwarding(to: ends.write)
            try? ends.read.close()
            try? ends.write.close()
        }
        sd_event_unref(handle)
    }

    /// Runs until `exit(code:)`; returns the exit code.
    public func run() throws(SystemError) -> Int32 {
        try SystemCall.negatedErrnoBlocking("sd_event_loop") { sd_event_loop(handle) }
    }

    /// Runs one iteration without waiting (for harnesses that drive the loop themselves):
    /// dispatches one pending source, if any. Returns whether one was dispatched (false
    /// when nothing was pending, or once the loop has exited).
    func runOnce() -> Bool {
        sd_event_run(handle, 0) > 0 && sd_event_get_state(handle) != Int32(SD_EVENT_FINISHED)
    }

    /// Makes `run()` return `code` after the current dispatch.
    public func exit(code: Int32 = 0) {
        sd_event_exit(handle, code)
    }

    /// The loop's cached CLOCK_MONOTONIC time of the current iteration, in microseconds.
    public var now: UInt64 {
        var usec: UInt64 = 0
        if sd_event_now(handle, CLOCK_MONOTONIC, &usec) < 0 { return monotonicMicroseconds() }
        return usec
    }

    /// Pings the systemd watchdog automatically when `WATCHDOG_USEC` is set; returns
    /// whether the watchdog is enabled.
    @discardableResult
    public func enableWatchdog() throws(SystemError) -> Bool {
        try SystemCall.negatedErrnoBlocking("sd_event_set_watchdog") { sd_event_set_watchdog(handle, 1) } > 0
    }

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT, …); `handler` gets the returned events.
    public func watch(_ fd: FileDescriptor, events: UInt32, handler: @escaping (UInt32) -> Void) throws(SystemError) -> IOWatch {
        let watch = IOWatch(handler: handler)
        var source: OpaquePointer?
        try SystemCall.negatedErrnoBlocking("sd_event_add_io") {
            sd_event_add_io(handle, &source, fd.rawValue, events, ioTrampoline, Unmanaged.passUnretained(watch).toOpaque())
        }
        watch.source = source
        return watch
    }

    /// A CLOCK_MONOTONIC timer, initially disarmed; arm it with `schedule(at:)`.
    public func timer(handler: @escaping (UInt64) -> Void) throws(SystemError) -> LoopTimer {
        let timer = LoopTimer(handler: handler)
        var source: OpaquePointer?
        try SystemCall.negatedErrnoBlocking("sd_event_add_time") {
            sd_event_add_time(handle, &source, CLOCK_MONOTONIC, UInt64.max, 1, timeTrampoline, Unmanaged.passUnretained(timer).toOpaque())
        }
        timer.source = source
        try timer.setEnabled(Int32(SD_EVENT_OFF))
        return timer
    }

    /// A task that runs once, just before the loop next waits, each time it is scheduled
    /// (an `sd_event` defer source): e.g. flushing output gathered during one dispatch.
    public func deferredTask(handler: @escaping () -> Void) throws(SystemError) -> DeferredTask {
        let task = DeferredTask(handler: handler)
        var source: OpaquePointer?
        try SystemCall.negatedErrnoBlocking("sd_event_add_defer") {
            sd_event_add_defer(handle, &source, deferTrampoline, Unmanaged.passUnretained(task).toOpaque())
        }
        task.source = source
        try task.setEnabled(Int32(SD_EVENT_OFF))
        return task
    }

    /// Delivers `signal` through the loop.
    ///
    /// Not `sd_event_add_signal`: its signalfd only sees signals blocked in every thread,
    /// and a thread the Swift runtime starts (an async `main` parks the main thread in
    /// `sigsuspend` with nothing blocked) would let a SIGTERM kill the process. Instead a handler writes the
    /// signal number to a pipe the loop watches (the self-pipe trick), whatever thread
    /// the kernel picks.
    public func onSignal(_ signal: Int32, handler: @escaping (Int32) -> Void) throws(SystemError) -> SignalWatch {
        if signalPipe == nil {
            let (readEnd, writeEnd) = try SignalForwarding.makePipe()
            signalPipeEnds = (readEnd, writeEnd)
            signalPipe = try watch(readEnd, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                dispatchSignals(from: readEnd)
            }
        }
        let watch = SignalWatch(signal: signal, handler: handler)
        signalWatches.append(Weak(watch))
        try SignalForwarding.forward(signal)
        return watch
    }

    private func dispatchSignals(from fd: FileDescriptor) {
        while let number = SignalForwarding.nextSignal(from: fd) {
            signalWatches.removeAll { $0.value == nil }
            for watch in signalWatches.compactMap(\.value) where watch.signal == number {
                watch.handler(number)
            }
        }
    }
}

private struct Weak<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}

/// Base of every event source: owns the `sd_event_source` and removes it when released.
public class EventSource {
    var source: OpaquePointer?

    init() {}

    deinit {
        if let source {
            sd_event_source_disable_unref(source)
        }
    }

    /// Stops watching now (also happens when the object is released).
    public func cancel() {
        if let source {
            sd_event_source_disable_unref(source)
            self.source = nil
        }
    }
}

/// A watched file descriptor.
public final class IOWatch: EventSource {
    let handler: (UInt32) -> Void

    init(handler: @escaping (UInt32) -> Void) {
        self.handler = handler
    }

    /// Changes the epoll events watched (e.g. add EPOLLOUT only while output is queued).
    /// Fails when the kernel refuses the change (`epoll_ctl`: `ENOMEM`, `ENOSPC`): the
    /// descriptor is then no longer watched as asked.
    public func setEvents(_ events: UInt32) throws(SystemError) {
        guard let source else { return }
        try SystemCall.negatedErrnoBlocking("sd_event_source_set_io_events") { sd_event_source_set_io_events(source, events) }
    }

    /// Stops (or resumes) watching the descriptor without giving up the watch. Resuming
    /// fails as `setEvents` does.
    public func setEnabled(_ enabled: Bool) throws(SystemError) {
        try setEnabled(Int32(enabled ? SD_EVENT_ON : SD_EVENT_OFF))
    }
}

extension EventSource {
    /// `sd_event_source_set_enabled`, checked (it fails with `ESTALE` once the loop has
    /// finished, `ECHILD` in a forked child, or as `epoll_ctl` does for a descriptor).
    func setEnabled(_ mode: Int32) throws(SystemError) {
        guard let source else { return }
        try SystemCall.negatedErrnoBlocking("sd_event_source_set_enabled") { sd_event_source_set_enabled(source, mode) }
    }
}

/// A re-armable one-shot CLOCK_MONOTONIC timer with microsecond accuracy (an sd-event time
/// source; not Foundation's `Timer`).
public final class LoopTimer: EventSource {
    let handler: (UInt64) -> Void
    /// The armed deadline, nil when disarmed.
    public private(set) var deadline: UInt64?

    init(handler: @escaping (UInt64) -> Void) {
        self.handler = handler
    }

    /// Fires once at `deadline` (CLOCK_MONOTONIC µs); nil disarms. Re-arming replaces the
    /// old deadline. Throws when sd-event refuses (see `EventSource.setEnabled`).
    public func schedule(at deadline: UInt64?) throws(SystemError) {
        guard let source, deadline != self.deadline else { return }
        do throws(SystemError) {
            if let deadline {
                try SystemCall.negatedErrnoBlocking("sd_event_source_set_time") { sd_event_source_set_time(source, deadline) }
                try setEnabled(Int32(SD_EVENT_ONESHOT))
            } else {
                try setEnabled(Int32(SD_EVENT_OFF))
            }
            self.deadline = deadline
        } catch {
            // Unknown now whether the old deadline is still armed (firing then is harmless:
            // handlers ask what is due); the next `schedule` sets everything again.
            self.deadline = nil
            throw error
        }
    }

    fileprivate func fire(_ usec: UInt64) {
        deadline = nil
        handler(usec)
    }
}

/// A task run once per `schedule()`, before the loop next waits.
public final class DeferredTask: EventSource {
    let handler: () -> Void

    init(handler: @escaping () -> Void) {
        self.handler = handler
    }

    /// Runs the task before the loop next waits (once, however often it is scheduled).
    public func schedule() throws(SystemError) {
        try setEnabled(Int32(SD_EVENT_ONESHOT))
    }
}

/// A signal delivered through the loop; released, it is no longer dispatched (the
/// signal stays caught).
public final class SignalWatch {
    let signal: Int32
    let handler: (Int32) -> Void

    init(signal: Int32, handler: @escaping (Int32) -> Void) {
        self.signal = signal
        self.handler = handler
    }
}

private func ioTrampoline(_: OpaquePointer?, _: Int32, _ revents: UInt32, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    let watch = Unmanaged<IOWatch>.fromOpaque(userdata).takeUnretainedValue()
    withExtendedLifetime(watch) { watch.handler(revents) }
    return 0
}

private func timeTrampoline(_: OpaquePointer?, _ usec: UInt64, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    let timer = Unmanaged<LoopTimer>.fromOpaque(userdata).takeUnretainedValue()
    withExtendedLifetime(timer) { timer.fire(usec) }
    return 0
}

private func deferTrampoline(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    let task = Unmanaged<DeferredTask>.fromOpaque(userdata).takeUnretainedValue()
    withExtendedLifetime(task) { task.handler() }
    return 0
}
