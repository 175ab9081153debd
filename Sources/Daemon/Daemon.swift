import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import Systemd

/// The live daemon: one `EventLoop` carrying the socket server, the input sources and
/// their deadlines, signals (SIGTERM/SIGINT stop, SIGHUP reloads), the watchdog and
/// readiness notifications.
public final class Daemon {
    public let loop: EventLoop
    /// What the daemon tells clients about itself: its devices, counters, metrics and
    /// `lastTouch`. The daemon's own: only it adds and removes devices.
    public let state: DaemonState
    private let server: SocketServer
    public private(set) var configuration: Configuration
    private let reload: () throws -> Configuration
    private var logger: Logger
    private let ids = GestureIDAllocator()
    /// Each source's watch and timer, by source (the sources themselves, in order, are
    /// `state.sources`).
    private var attached: [ObjectIdentifier: Attached] = [:]
    private var signals: [SignalWatch] = []
    private var statusTask: DeferredTask?
    private var activity: ActivityWatch?
    private var lastStatus = ""
    private var stopping = false
    private var observers: [(token: ObserverToken, observer: (DaemonChange) -> Void)] = []
    private var nextObserver = 0
    /// Whether `stop` was called (sources removed now must not be replaced).
    public var isStopping: Bool { stopping }

    /// Whether the daemon is idle now: a device added or reconfigured while idle is told so
    /// too (`LiveDevices`), or its first touch would not be the wake touch it is.
    public var isIdle: Bool { activity?.isIdle ?? false }

    /// Connected clients.
    public var clientCount: Int { server.clientCount }

    private final class Attached {
        let source: InputSource
        var watch: IOWatch?
        var timer: LoopTimer?
        init(_ source: InputSource) { self.source = source }
    }

    /// Sets up the loop and the server on `listener`. `reload` loads the configuration
    /// again on SIGHUP; when it throws, the old configuration stays in force.
    public init(
        configuration: Configuration, listener: UnixListener, version: String, logger: Logger,
        reload: @escaping () throws -> Configuration
    ) throws(SystemError) {
        loop = try EventLoop()
        self.configuration = configuration
        self.reload = reload
        self.logger = logger
        state = DaemonState(version: version)
        server = try SocketServer(loop: loop, listener: listener, settings: configuration.daemon, state: state, logger: logger)
        statusTask = try loop.deferredTask { [unowned self] in publishStatus() }
        activity = try ActivityWatch(
            loop: loop, timeout: configuration.daemon.idleTimeout, logger: logger,
            catchUp: { [unowned self] now in
                for source in state.sources {
                    if let attached = attached[ObjectIdentifier(source)] {
                        service(attached) { $0.deadlineReached(now: now, into: &$1) }
                    }
                }
            },
            changed: { [unowned self] message in
                server.activityChanged(message)
                if message.phase == .idle { notify(.wentIdle) }
            })
        state.activity = activity
        server.changed = { [unowned self] change in
            scheduleStatus()
            notify(change)
        }
    }

    // MARK: Observers

    /// Identifies an observer, to stop it.
    public struct ObserverToken: Hashable, Sendable {
        fileprivate let id: Int
    }

    /// Calls `observer` with every change from now on (on the loop's thread), after the
    /// observers registered before it; any number of components may observe.
    @discardableResult
    public func observe(_ observer: @escaping (DaemonChange) -> Void) -> ObserverToken {
        let token = ObserverToken(id: nextObserver)
        nextObserver += 1
        observers.append((token, observer))
        return token
    }

    /// `observer` hears nothing more (it may call this while it is being told).
    public func stopObserving(_ token: ObserverToken) {
        observers.removeAll { $0.token == token }
    }

    private func notify(_ change: DaemonChange) {
        for (token, observer) in observers where observers.contains(where: { $0.token == token }) {
            observer(change)
        }
    }

    // MARK: Sources

    /// Starts reading a device (announced to clients as added).
    public func add(_ source: InputSource) throws(SystemError) {
        let attached = Attached(source)
        if let fd = source.fileDescriptor {
            attached.watch = try loop.watch(fd, events: .readable) { [unowned self, unowned attached] _ in
                service(attached) { $0.readAvailable(now: now, into: &$1) }
            }
        }
        attached.timer = try loop.timer { [unowned self, unowned attached] _ in
            service(attached) { $0.deadlineReached(now: now, into: &$1) }
        }
        self.attached[ObjectIdentifier(source)] = attached
        state.sources.append(source)
        server.announce(source.device, added: true, time: now)
        logger.info("device added", metadata: ["device": "\(source.device.name)", "kind": "\(source.device.kind.rawValue)"])
        scheduleStatus()
        rearm(attached)
    }

    /// Stops reading a device: its gestures in flight are cancelled, clients are told.
    public func remove(_ source: InputSource, reason: String) {
        guard let attached = self.attached.removeValue(forKey: ObjectIdentifier(source)) else { return }
        state.sources.removeAll { $0 === source }
        attached.watch?.cancel()
        attached.timer?.cancel()
        var sink = sink(for: source)
        source.close(now: now, into: &sink)
        server.announce(source.device, added: false, time: now)
        activity?.deviceRemoved(source.device.name, now: now)
        logger.info("device removed", metadata: ["device": "\(source.device.name)", "reason": "\(reason)"])
        scheduleStatus()
        notify(.sourceRemoved(source))
    }

    /// The loop's monotonic clock as the engine's time.
    private var now: Timestamp { loop.now }

    /// The sources being read, in the order they were added.
    public var activeSources: [InputSource] { state.sources }

    private func sink(for source: InputSource) -> DaemonSink {
        DaemonSink(server: server, ids: ids, device: source.device.name, activity: activity)
    }

    /// Runs one of the source's callbacks; the lines it made are written to the clients
    /// before this returns (`SocketServer.deliveringAfter`).
    private func service(_ attached: Attached, _ body: (InputSource, inout DaemonSink) -> InputStatus) {
        var sink = sink(for: attached.source)
        let status = server.deliveringAfter { body(attached.source, &sink) }
        switch status {
        case .active:
            rearm(attached)
        case .finished(let reason):
            remove(attached.source, reason: reason)
        }
    }

    /// Arms the source's timer for its next deadline. A source whose deadlines cannot be
    /// kept (the loop refused the timer) is removed, its gestures cancelled, rather than
    /// left with gestures that would never end.
    private func rearm(_ attached: Attached) {
        do {
            try attached.timer?.schedule(at: attached.source.nextDeadline)
        } catch {
            logger.error("cannot arm the device's timer", metadata: ["device": "\(attached.source.device.name)", "error": "\(error)"])
            remove(attached.source, reason: "cannot arm its timer: \(error)")
        }
    }

    // MARK: Running

    /// Runs until SIGTERM/SIGINT (or `stop`): notifies readiness, honours the watchdog.
    /// Returns the exit code. `handleSignals: false` leaves the process's signals alone
    /// (for running daemons inside a test process).
    public func run(handleSignals: Bool = true) throws(SystemError) -> Int32 {
        Subprocess.ignore(signals: [SIGPIPE])
        for stopSignal in [SIGTERM, SIGINT] where handleSignals {
            signals.append(
                try loop.onSignal(stopSignal) { [unowned self] number in
                    logger.info("stopping on signal", metadata: ["signal": "\(number)"])
                    stop(reason: "stopping")
                })
        }
        if handleSignals {
            signals.append(try loop.onSignal(SIGHUP) { [unowned self] _ in reloadConfiguration() })
        }
        if try loop.enableWatchdog() {
            logger.info("watchdog enabled")
        }
        lastStatus = statusLine
        ServiceManager.ready(status: lastStatus)
        logger.info("ready", metadata: ["status": "\(lastStatus)"])
        return try loop.run()
    }

    /// Graceful stop: `STOPPING=1`, gestures in flight cancelled, goodbye to every client,
    /// socket file removed, loop exits with 0.
    public func stop(reason: String) {
        guard !stopping else { return }
        stopping = true
        ServiceManager.stopping()
        for source in state.sources {
            remove(source, reason: "daemon stopping")
        }
        activity?.cancel()
        server.stop(reason: reason)
        loop.exit(code: 0)
    }

    /// SIGHUP: loads the configuration again and applies it; a file that fails to load
    /// (whatever it holds: the fuzz harness `fuzz-reload` feeds it anything) is logged and
    /// the old configuration stays in force.
    func reloadConfiguration() {
        ServiceManager.reloading()
        logger.info("reloading configuration")
        do {
            let new = try reload()
            configuration = new
            server.apply(new.daemon)
            activity?.reconfigure(timeout: new.daemon.idleTimeout, now: now)
            for source in state.sources {
                if let attached = attached[ObjectIdentifier(source)] {
                    service(attached) { $0.reconfigure(new, now: now, into: &$1) }
                }
            }
            notify(.configurationChanged(new))
            logger.info("configuration reloaded")
        } catch {
            logger.error("reload failed, keeping the previous configuration", metadata: ["error": "\(error)"])
        }
        lastStatus = statusLine
        ServiceManager.ready(status: lastStatus)
    }

    private var statusLine: String {
        Self.statusLine(
            devices: state.sources.count, clients: server.clientCount, unmatched: state.sources.compactMap(\.unmatchedTouchscreen))
    }

    /// The `STATUS=` line `systemctl status` shows: `2 devices, 1 client`, then each
    /// touchscreen no `[[device]]` entry matches (`UnmatchedTouchscreen.message`). Device
    /// names are escaped: a newline in one would start another `sd_notify` field.
    static func statusLine(devices: Int, clients: Int, unmatched: [UnmatchedTouchscreen]) -> String {
        let counts = "\(devices) device\(devices == 1 ? "" : "s"), \(clients) client\(clients == 1 ? "" : "s")"
        return ([counts] + unmatched.map { DisplayText.escaped($0.message) }).joined(separator: "; ")
    }

    /// Publishes the status line before the loop next waits.
    private func scheduleStatus() {
        do {
            try statusTask?.schedule()
        } catch {
            logger.warning("cannot schedule the status update", metadata: ["error": "\(error)"])
        }
    }

    private func publishStatus() {
        let line = statusLine
        guard line != lastStatus, !stopping else { return }
        lastStatus = line
        ServiceManager.status(line)
    }
}
