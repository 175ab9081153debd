import CSystemCalls
import GestureCore
import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage
import Systemd

/// The daemon's single event loop, on epoll (`SystemCalls.EventPoll`): owns every
/// descriptor, timer, deferred task and signal watched on it. Not thread-safe: use it from
/// the thread that runs it.
///
/// One iteration:
/// 1. When nothing is pending from the last wait, it waits: not at all when a deferred task is
///    scheduled (or for `runOnce`), else until the earliest armed timer's deadline or the
///    watchdog's next ping (the `epoll_wait` timeout in milliseconds rounded up, so it never
///    wakes before a deadline; see `EventPoll.timeout`), else without limit. Then the
///    descriptors it found ready become pending, in the order the kernel reported them,
///    followed by the timers that are due, by deadline (ties: the timer made first): input
///    queued before a deadline is read before that deadline is served.
/// 2. `now` is read from the monotonic clock; the systemd watchdog is pinged when it is due.
/// 3. One pending source is dispatched. A watch whose events changed, was disabled or released
///    since it became pending, and a timer re-armed later, disarmed or released, is skipped
///    (the kernel reports a descriptor that is still ready again at the next wait).
/// 4. Unless `exit(code:)` was called, the deferred tasks scheduled so far run, in the order
///    they were scheduled, each once; a task scheduled while they run waits for the next
///    iteration (so a task that re-schedules itself cannot starve the loop).
///
/// So, as with sd-event (which this replaces: docs/architecture.md), one source is
/// dispatched per iteration and every deferred task runs after the dispatch that scheduled
/// it and before the loop next waits. Unlike sd-event, which left the order of sources
/// ready at once unspecified, input found ready by a wait always comes before the timers then
/// due, and timers come by deadline; deferred tasks run right after the dispatch that
/// scheduled them rather than among the other pending sources.
public final class EventLoop {
    private let poll: EventPoll
    private var nextToken: UInt64 = 1
    /// Watches by token (the `epoll_event` data).
    private var watches: [UInt64: Weak<IOWatch>] = [:]
    /// The token of the watch registered for each descriptor number: a watch left behind by
    /// a descriptor closed without cancelling does not take a new watch's descriptor away.
    private var registered: [Int32: UInt64] = [:]
    /// Armed timers by token.
    private var armed: [UInt64: Weak<LoopTimer>] = [:]
    /// Deferred tasks scheduled, in order; `runningTasks` holds those being run (two arrays
    /// swapped, so running them allocates nothing).
    private var scheduledTasks: [Weak<DeferredTask>] = []
    private var runningTasks: [Weak<DeferredTask>] = []
    private var dueTimers: [(deadline: Timestamp, token: UInt64)] = []
    /// Sources found ready by the last wait and not dispatched yet (from `pendingStart` on).
    private var pending: [Pending] = []
    private var pendingStart = 0
    private var iterationTime: Timestamp?
    private var exitCode: Int32?
    private var watchdog: (interval: TimeSpan, next: Timestamp)?
    private var signalPipe: IOWatch?
    /// This loop's signal pipe (both ends), closed with the loop.
    private(set) var signalPipeEnds: (read: FileDescriptor, write: FileDescriptor)?
    private var signalWatches: [Weak<SignalWatch>] = []

    private enum Pending {
        case io(UInt64)
        case timer(UInt64)
    }

    /// A new loop (tests can run several).
    public init() throws(SystemError) {
        poll = try EventPoll()
    }

    deinit {
        signalPipe?.cancel()
        if let ends = signalPipeEnds {
            // Signals go nowhere rather than to a descriptor number that may be reused.
            SignalForwarding.stopForwarding(to: ends.write)
            try? ends.read.close()
            try? ends.write.close()
        }
    }

    /// Runs until `exit(code:)`; returns the exit code. Throws when waiting fails.
    public func run() throws(SystemError) -> Int32 {
        while exitCode == nil {
            try iterate(waiting: true)
        }
        return exitCode ?? 0
    }

    /// Runs one iteration without waiting (for harnesses that drive the loop themselves):
    /// dispatches one pending source, if any, then the deferred tasks scheduled. Returns
    /// whether a source was dispatched or a task ran (false when nothing was pending, or
    /// once the loop has exited).
    func runOnce() -> Bool {
        guard exitCode == nil, let dispatched = try? iterate(waiting: false) else { return false }
        return dispatched && exitCode == nil
    }

    /// Makes `run()` return `code` after the current dispatch (no deferred task runs after it).
    public func exit(code: Int32 = 0) {
        exitCode = code
    }

    /// The loop's cached CLOCK_MONOTONIC time of the current iteration (the clock itself
    /// before the first iteration): the clock the engine's timestamps and deadlines are on.
    public var now: Timestamp {
        iterationTime ?? Self.clock()
    }

    /// CLOCK_MONOTONIC now.
    private static func clock() -> Timestamp {
        Timestamp(microseconds: monotonicMicroseconds())
    }

    /// Pings the systemd watchdog when `WATCHDOG_USEC` asks for it (`WATCHDOG_PID` unset or
    /// ours): `WATCHDOG=1` now and then every half interval, from the loop itself, so a
    /// handler that hangs stops the pings and systemd restarts the service. Returns whether
    /// the watchdog is enabled; throws when the variables are malformed
    /// (`ServiceManager.watchdogInterval()`).
    @discardableResult
    public func enableWatchdog() throws(SystemError) -> Bool {
        guard let interval = try ServiceManager.watchdogInterval() else { return false }
        let half = TimeSpan.microseconds(max(1, TimeSpan(interval).microseconds / 2))
        ServiceManager.watchdogPing()
        watchdog = (half, Self.clock() + half)
        return true
    }

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT, …); `handler` gets the returned events.
    public func watch(_ fd: FileDescriptor, events: UInt32, handler: @escaping (UInt32) -> Void) throws(SystemError) -> IOWatch {
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
    /// Not a signalfd: it only sees signals blocked in every thread, and a thread the Swift
    /// runtime starts (an async `main` parks the main thread in `sigsuspend` with nothing
    /// blocked) would let a SIGTERM kill the process. Instead a handler writes the signal
    /// number to a pipe the loop watches (the self-pipe trick), whatever thread the kernel
    /// picks.
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

    // MARK: The iteration

    /// One turn: waits (or not) for input and due timers, dispatches the first pending
    /// source, then the deferred tasks scheduled so far. Returns whether it dispatched a
    /// source or ran a task.
    @discardableResult
    private func iterate(waiting: Bool) throws(SystemError) -> Bool {
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            var timeout: Int32 = 0
            if waiting, scheduledTasks.isEmpty {
                var wake = earliestDeadline()
                if let ping = watchdog?.next { wake = min(wake ?? ping, ping) }
                timeout = EventPoll.timeout(until: wake?.microseconds, now: monotonicMicroseconds())
            }
            _ = try poll.wait(timeoutMilliseconds: timeout) { token, events in becameReady(token, events) }
            iterationTime = Self.clock()
            collectDueTimers()
        } else {
            iterationTime = Self.clock()
        }
        pingWatchdogIfDue()
        var dispatched = false
        // One source per turn; entries whose source went (cancelled, disabled, re-armed) are skipped.
        while !dispatched, pendingStart < pending.count {
            let next = pending[pendingStart]
            pendingStart += 1
            dispatched = dispatch(next)
        }
        if exitCode == nil, runScheduledTasks() {
            dispatched = true
        }
        return dispatched
    }

    private func becameReady(_ token: UInt64, _ events: UInt32) {
        guard let watch = watches[token]?.value, watch.isEnabled else { return }
        if watch.pendingEvents == 0 { pending.append(.io(token)) }
        watch.pendingEvents |= events
    }

    private func earliestDeadline() -> Timestamp? {
        // A plain loop: `lazy.compactMap { … }.min()` went through the standard library's
        // unspecialised `min()`, which looked its generic types up by name at every wait
        // (6 % of the daemon's instructions per frame, scripts/profile-daemon.sh).
        var earliest: Timestamp?
        for entry in armed.values {
            if let deadline = entry.value?.deadline, deadline < earliest ?? .distantFuture { earliest = deadline }
        }
        return earliest
    }

    private func collectDueTimers() {
        let now = now
        for (token, timer) in armed {
            if let deadline = timer.value?.deadline, deadline <= now { dueTimers.append((deadline, token)) }
        }
        guard !dueTimers.isEmpty else { return }
        dueTimers.sort { ($0.deadline, $0.token) < ($1.deadline, $1.token) }
        for due in dueTimers { pending.append(.timer(due.token)) }
        dueTimers.removeAll(keepingCapacity: true)
    }

    private func pingWatchdogIfDue() {
        guard let watchdog, now >= watchdog.next else { return }
        ServiceManager.watchdogPing()
        self.watchdog = (watchdog.interval, now + watchdog.interval)
    }

    /// Dispatches one pending source; false when it is gone or no longer due.
    private func dispatch(_ next: Pending) -> Bool {
        switch next {
        case .io(let token):
            guard let watch = watches[token]?.value, watch.pendingEvents != 0 else { return false }
            let events = watch.pendingEvents
            watch.pendingEvents = 0
            watch.handler(events)
        case .timer(let token):
            guard let timer = armed[token]?.value, let deadline = timer.deadline, deadline <= now else { return false }
            armed[token] = nil
            timer.fire(deadline)
        }
        return true
    }

    /// Runs the deferred tasks scheduled so far; returns whether one ran.
    private func runScheduledTasks() -> Bool {
        guard !scheduledTasks.isEmpty else { return false }
        swap(&scheduledTasks, &runningTasks)
        defer { runningTasks.removeAll(keepingCapacity: true) }
        var ran = false
        for index in runningTasks.indices {
            if exitCode != nil {
                // The rest stay scheduled (and run, should the loop run again).
                scheduledTasks.insert(contentsOf: runningTasks[index...], at: 0)
                return ran
            }
            guard let task = runningTasks[index].value, task.isScheduled else { continue }
            task.isScheduled = false
            task.handler()
            ran = true
        }
        return ran
    }

    // MARK: What the sources ask of the loop

    private func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Adds `watch`'s descriptor to epoll, taking it over from a stale watch of the same
    /// descriptor number (its descriptor was closed and the number reused).
    func register(_ watch: IOWatch) throws(SystemError) {
        let fd = watch.fd.rawValue
        if let previous = registered[fd], previous != watch.token {
            watches[previous]?.value?.isRegistered = false
        }
        do {
            try poll.add(watch.fd, events: watch.events, token: watch.token)
        } catch  where error.errno == .fileExists {
            try poll.modify(watch.fd, events: watch.events, token: watch.token)
        }
        registered[fd] = watch.token
        watch.isRegistered = true
    }

    func unregister(_ watch: IOWatch) {
        guard watch.isRegistered else { return }
        watch.isRegistered = false
        if registered[watch.fd.rawValue] == watch.token {
            registered[watch.fd.rawValue] = nil
            poll.remove(watch.fd)
        }
    }

    func modify(_ watch: IOWatch) throws(SystemError) {
        try poll.modify(watch.fd, events: watch.events, token: watch.token)
    }

    func forget(_ watch: IOWatch) {
        unregister(watch)
        watches[watch.token] = nil
    }

    func setArmed(_ timer: LoopTimer, _ isArmed: Bool) {
        armed[timer.token] = isArmed ? Weak(timer) : nil
    }

    func schedule(_ task: DeferredTask) {
        scheduledTasks.append(Weak(task))
    }
}

private struct Weak<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
