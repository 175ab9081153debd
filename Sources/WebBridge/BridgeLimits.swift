import Logging

/// The limits the bridge keeps for all its clients together (docs/web.md "Limits"), on its
/// one event loop: the connections it holds open (`max-connections`), the daemon
/// connections it makes for browsers and scrapes (`daemon-connections`, below the daemon's
/// `max-clients`, so browsers cannot lock `gesturectl` out), and the bytes held for all
/// browsers (`bridge-memory`). Each limit is logged once, the first time it bites, and
/// counted every time (`refusals`).
final class BridgeLimits {
    /// Which limit refused something.
    enum Limit: String, CaseIterable, Sendable {
        case connections = "max-connections"
        case daemonConnections = "daemon-connections"
        case memory = "bridge-memory"
        case clientMemory = "client-memory"
        case descriptors = "descriptors (LimitNOFILE)"
    }

    let maximumConnections: Int
    let maximumDaemonConnections: Int
    let memoryLimit: Int
    private let logger: Logger
    private(set) var connections = 0
    private(set) var daemonConnections = 0
    /// Bytes held for all browsers together.
    private(set) var memoryUsed = 0
    private var reported: Set<Limit> = []
    /// How often each limit refused something.
    private(set) var refusals: [Limit: Int] = [:]

    init(maximumConnections: Int, maximumDaemonConnections: Int, memoryLimit: Int, logger: Logger) {
        self.maximumConnections = maximumConnections
        self.maximumDaemonConnections = maximumDaemonConnections
        self.memoryLimit = memoryLimit
        self.logger = logger
    }

    /// A connection was accepted; false (and it is to be closed at once) when the bridge
    /// already holds `maximumConnections`.
    func openConnection() -> Bool {
        guard connections < maximumConnections else {
            bit(.connections, "\(maximumConnections) connections open: new ones are closed at once")
            return false
        }
        connections += 1
        return true
    }

    func closeConnection() {
        connections -= 1
    }

    /// A browser or a scrape wants a daemon connection; false when the bridge already has
    /// `maximumDaemonConnections` (the browser is told 1013, the scrape gets 503).
    func openDaemonConnection() -> Bool {
        guard daemonConnections < maximumDaemonConnections else {
            bit(.daemonConnections, "\(maximumDaemonConnections) daemon connections open: further browsers are refused (1013)")
            return false
        }
        daemonConnections += 1
        return true
    }

    func closeDaemonConnection() {
        daemonConnections -= 1
    }

    /// A browser's held bytes went from `old` to `new`; false when the total is now over
    /// `memoryLimit` (the caller closes that browser with 1013, which gives its bytes back).
    func memoryChanged(from old: Int, to new: Int) -> Bool {
        memoryUsed += new - old
        guard new <= old || memoryUsed <= memoryLimit else {
            bit(.memory, "\(memoryLimit) bytes held for browsers: the browser that adds more is closed (1013)")
            return false
        }
        return true
    }

    /// A limit refused something: counted, and logged the first time only.
    func bit(_ limit: Limit, _ message: String) {
        refusals[limit, default: 0] += 1
        if reported.insert(limit).inserted {
            logger.warning("limit reached (\(limit.rawValue)): \(message); logged once, see docs/web.md \"Limits\"")
        }
    }
}
