import CSystemd
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The daemon's single event loop: owns an `sd_event` and every descriptor, timer and
/// signal watched on it. Not thread-safe: use it from the thread that runs it.
public final class EventLoop {
    let handle: OpaquePointer

    /// A new loop (not the thread's default one, so tests can run several).
    public init() throws(SystemError) {
        var event: OpaquePointer?
        try sdCheck(sd_event_new(&event), "sd_event_new")
        guard let event else { throw SystemError("sd_event_new", errno: ENOMEM) }
        handle = event
    }

    deinit {
        sd_event_unref(handle)
    }

    /// Runs until `exit(code:)`; returns the exit code.
    public func run() throws(SystemError) -> Int32 {
        try sdCheck(sd_event_loop(handle), "sd_event_loop")
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
        try sdCheck(sd_event_set_watchdog(handle, 1), "sd_event_set_watchdog") > 0
    }

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT, …); `handler` gets the returned events.
    public func watch(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws(SystemError) -> IOWatch {
        let watch = IOWatch(handler: handler)
        var source: OpaquePointer?
        try sdCheck(
            sd_event_add_io(handle, &source, fd, events, ioTrampoline, Unmanaged.passUnretained(watch).toOpaque()),
            "sd_event_add_io"
        )
        watch.source = source
        return watch
    }

    /// A CLOCK_MONOTONIC timer, initially disarmed; arm it with `schedule(at:)`.
    public func timer(handler: @escaping (UInt64) -> Void) throws(SystemError) -> Timer {
        let timer = Timer(handler: handler)
        var source: OpaquePointer?
        try sdCheck(
            sd_event_add_time(handle, &source, CLOCK_MONOTONIC, UInt64.max, 1, timeTrampoline, Unmanaged.passUnretained(timer).toOpaque()),
            "sd_event_add_time"
        )
        timer.source = source
        try sdCheck(sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)), "sd_event_source_set_enabled")
        return timer
    }

    /// A task that runs once, just before the loop next waits, each time it is scheduled
    /// (an `sd_event` defer source): e.g. flushing output gathered during one dispatch.
    public func deferredTask(handler: @escaping () -> Void) throws(SystemError) -> DeferredTask {
        let task = DeferredTask(handler: handler)
        var source: OpaquePointer?
        try sdCheck(
            sd_event_add_defer(handle, &source, deferTrampoline, Unmanaged.passUnretained(task).toOpaque()),
            "sd_event_add_defer"
        )
        task.source = source
        try sdCheck(sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)), "sd_event_source_set_enabled")
        return task
    }

    /// Delivers `signal` through the loop (a signalfd). The signal is blocked for the
    /// calling thread first, so it must be the thread that runs the loop, before any
    /// other thread is started that could receive it.
    public func onSignal(_ signal: Int32, handler: @escaping (Int32) -> Void) throws(SystemError) -> SignalWatch {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        let blocked = pthread_sigmask(SIG_BLOCK, &set, nil)
        if blocked != 0 { throw SystemError("pthread_sigmask", errno: blocked) }
        let watch = SignalWatch(handler: handler)
        var source: OpaquePointer?
        try sdCheck(
            sd_event_add_signal(handle, &source, signal, signalTrampoline, Unmanaged.passUnretained(watch).toOpaque()),
            "sd_event_add_signal"
        )
        watch.source = source
        return watch
    }
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
    public func setEvents(_ events: UInt32) {
        if let source { _ = sd_event_source_set_io_events(source, events) }
    }
}

/// A re-armable one-shot CLOCK_MONOTONIC timer with microsecond accuracy.
public final class Timer: EventSource {
    let handler: (UInt64) -> Void
    /// The armed deadline, nil when disarmed.
    public private(set) var deadline: UInt64?

    init(handler: @escaping (UInt64) -> Void) {
        self.handler = handler
    }

    /// Fires once at `deadline` (CLOCK_MONOTONIC µs); nil disarms. Re-arming replaces the old deadline.
    public func schedule(at deadline: UInt64?) {
        guard let source, deadline != self.deadline else { return }
        self.deadline = deadline
        if let deadline {
            _ = sd_event_source_set_time(source, deadline)
            _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
        } else {
            _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
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

    public func schedule() {
        if let source { _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT)) }
    }
}

/// A signal delivered through the loop.
public final class SignalWatch: EventSource {
    let handler: (Int32) -> Void

    init(handler: @escaping (Int32) -> Void) {
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
    let timer = Unmanaged<Timer>.fromOpaque(userdata).takeUnretainedValue()
    withExtendedLifetime(timer) { timer.fire(usec) }
    return 0
}

private func deferTrampoline(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    let task = Unmanaged<DeferredTask>.fromOpaque(userdata).takeUnretainedValue()
    withExtendedLifetime(task) { task.handler() }
    return 0
}

private func signalTrampoline(_: OpaquePointer?, _ info: UnsafePointer<signalfd_siginfo>?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    let watch = Unmanaged<SignalWatch>.fromOpaque(userdata).takeUnretainedValue()
    let signal = Int32(bitPattern: info?.pointee.ssi_signo ?? 0)
    withExtendedLifetime(watch) { watch.handler(signal) }
    return 0
}
