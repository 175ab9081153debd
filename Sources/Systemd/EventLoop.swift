import CSystemd
import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage

/// The daemon's single event loop, on libsystemd's sd-event (`sd_event_new`): sd-event owns
/// every descriptor watched (`IOWatch`, an IO source each), the udev monitor
/// (`DeviceMonitor`), the timers (one CLOCK_MONOTONIC time source for all the loop's
/// `LoopTimer`s) and the watchdog (`sd_event_set_watchdog`); the loop adds the order below.
/// Not thread-safe: use it from the thread that runs it.
///
/// One iteration is one `sd_event_run`:
/// 1. sd-event waits when nothing is pending: not at all when a deferred task is scheduled
///    (an enabled defer source is always pending) or for `runOnce`, else until the time
///    source's deadline (the earliest armed timer's, to the microsecond) or the watchdog's
///    next ping, else without limit (no idle wakeup). Then the descriptors it found ready and
///    the time source, once due, become pending; `now` is that wait's CLOCK_MONOTONIC time.
/// 2. One pending source is dispatched: the one pending since the earliest wait (sd-event
///    orders by priority, then by the iteration a source became pending), so nothing ready
///    is starved. Deferred tasks have a lower priority than input and timers.
/// 3. The time source fires the earliest due timer (ties: the timer made first) and is set
///    to the next deadline. Input found ready by the wait that found a timer due comes first:
///    when the time source finds an input watch pending, it steps aside once (it becomes
///    pending again at the next wait, after every source pending now), then fires.
/// 4. Unless `exit(code:)` was called, the deferred tasks scheduled so far run right after
///    the dispatch, in the order they were scheduled, each once; a task scheduled while they
///    run waits for the next dispatch (so a task that re-schedules itself cannot starve the
///    loop), and runs before the loop next waits.
///
/// A watch whose events changed, was disabled or released since it became pending, and a
/// timer re-armed later, disarmed or released, is not dispatched (sd-event drops a source's
/// pending state when it changes; a descriptor still ready is found again by the next wait).
public final class EventLoop {
    /// The `sd_event`.
    let handle: OpaquePointer
    private var nextToken: UInt64 = 1
    /// Watches by token: the input watches the time source steps aside for.
    private var watches: [UInt64: Weak<IOWatch>] = [:]
    /// The token of the watch registered for each descriptor number: a watch left behind by
    /// a descriptor closed without cancelling does not take a new watch's descriptor away.
    private var registered: [Int32: UInt64] = [:]
    /// Armed timers by token.
    private var armed: [UInt64: Weak<LoopTimer>] = [:]
    /// The one time source, armed for the earliest deadline in `armed` (`timeSourceDeadline`).
    private var timeSource: OpaquePointer?
    private var timeSourceDeadline: Timestamp?
    /// The time source stepped aside for pending input: the next time it fires a timer.
    private var timeSourceSteppedAside = false
    /// The defer source that runs deferred tasks no dispatch ran (scheduled outside one, or
    /// from a task), enabled while such tasks wait.
    private var taskSource: OpaquePointer?
    private var taskSourceEnabled = false
    /// Deferred tasks scheduled, in order; `runningTasks` holds those being run (two arrays
    /// swapped, so running them allocates nothing).
    private var scheduledTasks: [Weak<DeferredTask>] = []
    private var runningTasks: [Weak<DeferredTask>] = []
    /// Set by each dispatch of one of the loop's sources (`runOnce` tells a dispatch from a
    /// time source stepping aside).
    private var dispatchedSource = false
    private var exitCode: Int32?
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
        do throws(SystemError) {
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            var time: OpaquePointer?
            // Accuracy 1 µs: sd-event would otherwise let a deadline slip by up to 250 ms to
            // coalesce wakeups.
            try SystemCall.negatedErrnoBlocking("sd_event_add_time") {
                sd_event_add_time(event, &time, CLOCK_MONOTONIC, UInt64.max, 1, timeTrampoline, userdata)
            }
            timeSource = time
            try setEnabled(time, Int32(SD_EVENT_OFF))
            var task: OpaquePointer?
            try SystemCall.negatedErrnoBlocking("sd_event_add_defer") { sd_event_add_defer(event, &task, taskTrampoline, userdata) }
            taskSource = task
            try setEnabled(task, Int32(SD_EVENT_OFF))
            try SystemCall.negatedErrnoBlocking("sd_event_source_set_priority") {
                sd_event_source_set_priority(task, Int64(SD_EVENT_PRIORITY_IDLE))
            }
        } catch {
            releaseSources()
            sd_event_unref(event)
            throw error
        }
    }

    deinit {
        signalPipe?.cancel()
        if let ends = signalPipeEnds {
            // Signals go nowhere rather than to a descriptor number that may be reused.
            SignalForwarding.stopForwarding(to: ends.write)
            try? ends.read.close()
            try? ends.write.close()
        }
        releaseSources()
        sd_event_unref(handle)
    }

    private func releaseSources() {
        if let timeSource { sd_event_source_disable_unref(timeSource) }
        if let taskSource { sd_event_source_disable_unref(taskSource) }
        timeSource = nil
        taskSource = nil
    }

    /// Runs until `exit(code:)`; returns the exit code. Throws when waiting fails.
    public func run() throws(SystemError) -> Int32 {
        guard exitCode == nil else { return exitCode ?? 0 }
        return try SystemCall.negatedErrnoBlocking("sd_event_loop") { sd_event_loop(handle) }
    }

    /// Runs one iteration without waiting (for harnesses that drive the loop themselves):
    /// dispatches one pending source, if any, then the deferred tasks scheduled. Returns
    /// whether a source was dispatched or a task ran (false when nothing was pending, or
    /// once the loop has exited).
    public func runOnce() -> Bool {
        while exitCode == nil {
            dispatchedSource = false
            guard sd_event_run(handle, 0) > 0 else { return false }
            // Nothing of the loop's ran: the time source stepped aside, or found no timer due.
            if dispatchedSource { return exitCode == nil }
        }
        return false
    }

    /// Makes `run()` return `code` after the current dispatch (no deferred task runs after it).
    public func exit(code: Int32 = 0) {
        guard exitCode == nil else { return }
        exitCode = code
        sd_event_exit(handle, code)
    }

    /// The loop's CLOCK_MONOTONIC time of the current iteration (`sd_event_now`: the clock
    /// itself before the first iteration): the clock the engine's timestamps and deadlines
    /// are on.
    public var now: Timestamp {
        var usec: UInt64 = 0
        guard sd_event_now(handle, CLOCK_MONOTONIC, &usec) >= 0 else { return Timestamp(microseconds: monotonicMicroseconds()) }
        return Timestamp(microseconds: usec)
    }

    /// Pings the systemd watchdog when `WATCHDOG_USEC` asks for it (`WATCHDOG_PID` unset or
    /// ours): sd-event's watchdog (`sd_event_set_watchdog`) sends `WATCHDOG=1` now and then
    /// from the loop itself, between a half and three quarters of the interval, so a handler
    /// that hangs stops the pings and systemd restarts the service. Returns whether the
    /// watchdog is enabled; throws when the variables are malformed
    /// (`ServiceManager.watchdogInterval()`, which names them).
    @discardableResult
    public func enableWatchdog() throws(SystemError) -> Bool {
        guard try ServiceManager.watchdogInterval() != nil else { return false }
        return try SystemCall.negatedErrnoBlocking("sd_event_set_watchdog") { sd_event_set_watchdog(handle, 1) } > 0
    }

    /// Watches `fd` for `events`; `handler` gets the events the descriptor is ready for.
    public func watch(_ fd: FileDescriptor, events: IOEvents, handler: @escaping (IOEvents) -> Void) throws(SystemError) -> IOWatch {
        let watch = IOWatch(loop: self, token: makeToken(), fd: fd, events: events, handler: handler)
        try register(watch)
        watches[watch.token] = Weak(watch)
        return watch
    }

    /// A CLOCK_MONOTONIC timer, initially disarmed; arm it with `schedule(at:)`.
    public func timer(handler: @escaping (Timestamp) -> Void) throws(SystemError) -> LoopTimer {
        LoopTimer(loop: self, token: makeToken(), handler: handler)
    }

    /// A task that runs once, just after the current dispatch and before the loop next
    /// waits, each time it is scheduled: e.g. flushing output gathered during one dispatch.
    public func deferredTask(handler: @escaping () -> Void) throws(SystemError) -> DeferredTask {
        DeferredTask(loop: self, token: makeToken(), handler: handler)
    }

    /// Delivers `signal` through the loop.
    ///
    /// Not `sd_event_add_signal`: its signalfd only sees signals blocked in every thread, and
    /// a thread the Swift runtime starts (an async `main` parks the main thread in
    /// `sigsuspend` with nothing blocked) would let a SIGTERM kill the process. Instead a
    /// handler writes the signal number to a pipe the loop watches (the self-pipe trick),
    /// whatever thread the kernel picks.
    public func onSignal(_ signal: Int32, handler: @escaping (Int32) -> Void) throws(SystemError) -> SignalWatch {
        if signalPipe == nil {
            let (readEnd, writeEnd) = try SignalForwarding.makePipe()
            signalPipeEnds = (readEnd, writeEnd)
            signalPipe = try watch(readEnd, events: .readable) { [unowned self] _ in
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

    // MARK: Dispatching

    /// Runs one source's handler, then the deferred tasks scheduled so far (every callback
    /// sd-event makes into the loop's sources comes through here).
    func dispatch(_ body: () -> Void) {
        dispatchedSource = true
        body()
        if exitCode == nil {
            runScheduledTasks()
        }
    }

    /// The time source is due: fires the earliest due timer, unless input is pending (it
    /// steps aside once), then sets the source for the next deadline.
    fileprivate func timeSourceFired() {
        timeSourceDeadline = nil  // a oneshot source is off once dispatched
        defer { armTimeSource() }
        let now = now
        var earliest: (deadline: Timestamp, token: UInt64, timer: LoopTimer)?
        for (token, entry) in armed {
            guard let timer = entry.value, let deadline = timer.deadline, deadline <= now else { continue }
            if earliest.map({ (deadline, token) < ($0.deadline, $0.token) }) ?? true { earliest = (deadline, token, timer) }
        }
        guard let earliest else { return }
        if !timeSourceSteppedAside, inputIsPending() {
            timeSourceSteppedAside = true
            return
        }
        timeSourceSteppedAside = false
        armed[earliest.token] = nil
        dispatch { earliest.timer.fire(earliest.deadline) }
    }

    /// Whether an enabled input watch is pending (found ready and not dispatched yet).
    private func inputIsPending() -> Bool {
        for entry in watches.values {
            if let watch = entry.value, watch.isRegistered, let source = watch.source, sd_event_source_get_pending(source) > 0 {
                return true
            }
        }
        return false
    }

    /// Arms the time source for the earliest armed deadline (off when none).
    private func armTimeSource() {
        // A plain loop: `lazy.compactMap { … }.min()` went through the standard library's
        // unspecialised `min()`, which looked its generic types up by name each time
        // (scripts/profile-daemon.sh).
        var earliest: Timestamp?
        for entry in armed.values {
            if let deadline = entry.value?.deadline, deadline < earliest ?? .distantFuture { earliest = deadline }
        }
        guard earliest != timeSourceDeadline, let timeSource else { return }
        timeSourceDeadline = earliest
        // Unknown now whether the old deadline is still armed after a failure: firing then is
        // harmless (the source fires only what is due) and the next change sets it again.
        if let earliest {
            _ = sd_event_source_set_time(timeSource, earliest.microseconds)
            _ = sd_event_source_set_enabled(timeSource, Int32(SD_EVENT_ONESHOT))
        } else {
            _ = sd_event_source_set_enabled(timeSource, Int32(SD_EVENT_OFF))
        }
    }

    /// Runs the deferred tasks scheduled so far; those scheduled meanwhile wait for the next
    /// dispatch or, if none comes first, the task source.
    private func runScheduledTasks() {
        guard !scheduledTasks.isEmpty else { return }
        swap(&scheduledTasks, &runningTasks)
        defer {
            runningTasks.removeAll(keepingCapacity: true)
            setTaskSourceEnabled(!scheduledTasks.isEmpty)
        }
        for index in runningTasks.indices {
            if exitCode != nil {
                // The rest stay scheduled (and run, should the loop run again).
                scheduledTasks.insert(contentsOf: runningTasks[index...], at: 0)
                return
            }
            guard let task = runningTasks[index].value, task.isScheduled else { continue }
            task.isScheduled = false
            task.handler()
        }
    }

    fileprivate func taskSourceFired() {
        taskSourceEnabled = false  // a oneshot source is off once dispatched
        guard scheduledTasks.contains(where: { $0.value?.isScheduled == true }) else {
            scheduledTasks.removeAll(keepingCapacity: true)
            return
        }
        dispatch {}
    }

    private func setTaskSourceEnabled(_ enabled: Bool) {
        guard enabled != taskSourceEnabled, let taskSource else { return }
        taskSourceEnabled = enabled
        _ = sd_event_source_set_enabled(taskSource, Int32(enabled ? SD_EVENT_ONESHOT : SD_EVENT_OFF))
    }

    // MARK: What the sources ask of the loop

    private func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Adds `watch`'s descriptor to sd-event (a new IO source, or its source enabled again),
    /// taking it over from a stale watch of the same descriptor number (its descriptor was
    /// closed and the number reused): the stale source is turned off first, so releasing it
    /// later removes nothing from epoll (sd-event removes by number, whatever it names now).
    func register(_ watch: IOWatch) throws(SystemError) {
        let fd = watch.fd.rawValue
        if let previous = registered[fd], previous != watch.token, let stale = watches[previous]?.value {
            stale.isRegistered = false
            if let source = stale.source { _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)) }
        }
        if let source = watch.source {
            try setEnabled(source, Int32(SD_EVENT_ON))
        } else {
            var source: OpaquePointer?
            try SystemCall.negatedErrnoBlocking("sd_event_add_io") {
                sd_event_add_io(handle, &source, fd, watch.events.rawValue, ioTrampoline, Unmanaged.passUnretained(watch).toOpaque())
            }
            watch.source = source
        }
        registered[fd] = watch.token
        watch.isRegistered = true
    }

    func unregister(_ watch: IOWatch) {
        guard watch.isRegistered else { return }
        watch.isRegistered = false
        if let source = watch.source { _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)) }
        if registered[watch.fd.rawValue] == watch.token {
            registered[watch.fd.rawValue] = nil
        }
    }

    func modify(_ watch: IOWatch) throws(SystemError) {
        guard let source = watch.source else { return }
        try SystemCall.negatedErrnoBlocking("sd_event_source_set_io_events") {
            sd_event_source_set_io_events(source, watch.events.rawValue)
        }
    }

    func forget(_ watch: IOWatch) {
        unregister(watch)
        watches[watch.token] = nil
    }

    func setArmed(_ timer: LoopTimer, _ isArmed: Bool) {
        armed[timer.token] = isArmed ? Weak(timer) : nil
        armTimeSource()
    }

    func schedule(_ task: DeferredTask) {
        scheduledTasks.append(Weak(task))
        setTaskSourceEnabled(true)
    }

    /// `sd_event_source_set_enabled`, checked (it fails with `ESTALE` once the loop has
    /// finished, `ECHILD` in a forked child, or as `epoll_ctl` does for a descriptor).
    private func setEnabled(_ source: OpaquePointer?, _ mode: Int32) throws(SystemError) {
        try SystemCall.negatedErrnoBlocking("sd_event_source_set_enabled") { sd_event_source_set_enabled(source, mode) }
    }
}

private struct Weak<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}

private func ioTrampoline(_: OpaquePointer?, _: Int32, _ revents: UInt32, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    let watch = Unmanaged<IOWatch>.fromOpaque(userdata).takeUnretainedValue()
    guard let loop = watch.loop else { return 0 }
    withExtendedLifetime(watch) { loop.dispatch { watch.handler(IOEvents(rawValue: revents)) } }
    return 0
}

private func timeTrampoline(_: OpaquePointer?, _: UInt64, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    Unmanaged<EventLoop>.fromOpaque(userdata).takeUnretainedValue().timeSourceFired()
    return 0
}

private func taskTrampoline(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    Unmanaged<EventLoop>.fromOpaque(userdata).takeUnretainedValue().taskSourceFired()
    return 0
}
