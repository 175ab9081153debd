import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Systemd

/// Serves protocol 1 on a listening socket: the fan-out of events to the clients whose
/// subscriptions accept them, and the answers to their requests.
///
/// Its parts, each on its own: `Admission` lets clients in (accept, `max-clients`, the
/// allow-lists, the pause when descriptors run out); each `ClientConnection` holds one
/// client's queue and writes (the slow-client rules of docs/protocol.md are
/// `GestureProtocol.DeliveryQueue`'s); `DeliveryBudget` shares `queue-memory` among them.
/// What the daemon tells clients about itself (devices, counters, `lastTouch`) is the
/// daemon's `DaemonState`.
///
/// Many stalled clients cost neither memory nor time without bound: each dispatch does
/// bounded work (at most `maximumFlushesPerDispatch` clients written to per turn, a
/// stalled one not at all until its socket is writable), so `hello`, `status` and signals
/// are served however many clients are stalled. Every log line a client can trigger is
/// rate-limited.
final class SocketServer: ClientConnectionOwner {
    /// Clients written to per turn of the loop (the rest on the next turn).
    static let maximumFlushesPerDispatch = 256

    private let loop: EventLoop
    private var admission: Admission?
    private var flushTask: DeferredTask?
    private var settings: DaemonSettings
    let state: DaemonState
    let log: RateLimitedLogger
    /// Touch hygiene's lines: one per device and reason a minute (phantoms: one per series).
    private let hygieneLog: RateLimitedLogger
    private var clients: [UInt64: ClientConnection] = [:]
    let budget: DeliveryBudget
    /// Clients with output to write before the loop next waits.
    private var scheduled: [ClientConnection] = []
    /// `deliveringAfter` calls under way: output is written when the outermost returns.
    private var deliveryDepth = 0
    private var nextClientID: UInt64 = 1
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The `idle` line while the daemon is idle: a client connecting then is told at once.
    private var idleLine: EventLine?
    /// Whether any client asked for raw touch events (skip encoding them otherwise).
    private(set) var wantsTouches = false
    private var stopped = false
    /// Told when a client connects or goes, and when a client's `subscribe` took effect:
    /// set by the daemon, which owns the server and passes it on to its observers.
    var changed: (DaemonChange) -> Void = { _ in }

    /// Starts accepting on `listener`.
    init(loop: EventLoop, listener: UnixListener, settings: DaemonSettings, state: DaemonState, logger: Logger) throws(SystemError) {
        self.loop = loop
        self.settings = settings
        self.state = state
        budget = DeliveryBudget(limit: settings.queueMemory)
        log = RateLimitedLogger(logger: logger, now: { [unowned loop] in loop.now })
        hygieneLog = RateLimitedLogger(
            logger: logger, limiter: LogRateLimiter(interval: Self.hygieneLogInterval, burst: 1),
            now: { [unowned loop] in loop.now })
        admission = try Admission(
            loop: loop, listener: listener, settings: settings, state: state, log: log, clientCount: { [unowned self] in clients.count },
            admitted: { [unowned self] fd, credentials in admit(fd, credentials: credentials) })
        flushTask = try loop.deferredTask { [unowned self] in flushScheduled(limit: SocketServer.maximumFlushesPerDispatch) }
    }

    /// Connected clients.
    var clientCount: Int { clients.count }

    /// Applies new limits and policies; existing queues keep theirs until reconnect.
    func apply(_ settings: DaemonSettings) {
        self.settings = settings
        budget.limit = settings.queueMemory
        admission?.apply(settings)
    }

    private var deliveryLimits: DeliveryLimits {
        DeliveryLimits(events: settings.clientQueueLength, policy: settings.slowClientPolicy)
    }

    // MARK: Broadcasting

    /// Sends a gesture event to every client whose subscription accepts it.
    func broadcast(_ event: GestureEvent, device: String) {
        state.counters.events += 1
        state.metrics.count(event, device: device)
        var line: EventLine? = nil
        for client in clients.values where client.subscription.accepts(event, device: device) {
            if line == nil { line = EventLine(GestureMessage(event, device: device)) }
            client.enqueue(line!)
        }
    }

    /// Sends the contacts of one frame as `touch` events to clients that asked for them.
    func broadcastTouches(_ frame: TouchFrame, device: String) {
        guard wantsTouches else { return }
        for contact in frame.contacts {
            state.counters.events += 1
            let line = EventLine(TouchMessage(contact, time: frame.time, device: device))
            for client in clients.values where client.subscription.touches && client.subscription.accepts(device: device) {
                client.enqueue(line)
            }
        }
    }

    /// Announces a device that came or went.
    func announce(_ device: DeviceInfo, added: Bool, time: Timestamp) {
        state.counters.events += 1
        let line = EventLine(DeviceMessage(phase: added ? .added : .removed, seq: 0, time: time, device: device))
        for client in clients.values where client.subscription.accepts(device: device.name) {
            client.enqueue(line)
        }
    }

    /// The daemon went idle or active: every client is told (no filter applies).
    func activityChanged(_ message: ActivityMessage) {
        state.counters.events += 1
        let line = EventLine(message)
        idleLine = message.phase == .idle ? line : nil
        for client in clients.values {
            client.enqueue(line)
        }
    }

    /// Touch hygiene dropped or ended a touch on `device`: counted for `metrics`, and logged
    /// at most once a minute per device and reason (`suppressed=N` says how many were not);
    /// a phantom series is logged when its first touch is dropped, not per touch.
    func touchFiltered(_ filtered: TouchFiltered, device: String) {
        state.metrics.countFiltered(filtered.reason, device: device)
        // The metadata is built only for a line that is written (an autoclosure).
        switch filtered.reason {
        case .phantom:
            guard let period = filtered.seriesPeriod else { return }
            hygieneLog.log(
                .notice,
                "touch hygiene: phantom touches repeating at one point on \(device), dropped while they keep its period (gesturectl status shows the series)",
                [
                    "device": "\(device)", "reason": "phantom", "location": "\(filtered.location.x) \(filtered.location.y)",
                    "period-ms": "\(period.milliseconds)",
                ])
        case .bounce, .repeat, .tooShort, .stuck, .zeroDuration:
            hygieneLog.log(
                .info, "touch hygiene: touches dropped or ended on \(device) (\(filtered.reason.rawValue))",
                [
                    "device": "\(device)", "reason": "\(filtered.reason.rawValue)",
                    "location": "\(filtered.location.x) \(filtered.location.y)",
                ])
        }
    }

    /// Microseconds between two touch hygiene lines of one device and reason.
    static let hygieneLogInterval = TimeSpan.seconds(60)

    // MARK: Clients

    private func admit(_ fd: FileDescriptor, credentials: PeerCredentials?) {
        let client = ClientConnection(id: nextClientID, fd: fd, credentials: credentials, limits: deliveryLimits, owner: self)
        nextClientID += 1
        do {
            client.watch = try loop.watch(fd, events: .readable) { [unowned self, unowned client] revents in
                for line in client.handle(revents: revents, readBuffer: &readBuffer) where !client.isClosed {
                    handleRequest(line, from: client)
                }
            }
        } catch {
            log.log(.error, "cannot watch client", ["error": "\(error)"])
            try? fd.close()
            return
        }
        clients[client.id] = client
        budget.clients = clients.count
        state.counters.connections += 1
        changed(.clientsChanged)
        log.log(.debug, "client connected", client.metadata())
        client.reply(.hello(state.hello))
        if let idleLine {
            client.enqueue(idleLine)
        }
    }

    private func handleRequest(_ line: [UInt8], from client: ClientConnection) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) { return }
        let request: ClientRequest
        do {
            request = try WireDecoder.request(line)
        } catch {
            log.log(.debug, "bad request", client.metadata(["error": "\(error)"]))
            client.reply(.error(message: "\(error)"))
            return
        }
        switch request {
        case .ping:
            client.reply(.pong(time: Timestamp(microseconds: monotonicMicroseconds())))
        case .status:
            client.reply(.status(state.status(clients: clients.count, maxClients: settings.maxClients)))
        case .metrics:
            client.reply(.metrics(state.metricsMessage(clients: clients.count)))
        case .subscribe(let filters):
            let subscription = Subscription(filters)
            client.subscription = subscription
            wantsTouches = clients.values.contains { $0.subscription.touches }
            log.log(.debug, "client subscribed", client.metadata(["subscription": "\(subscription)"]))
            changed(.clientSubscribed)
        }
    }

    func scheduleFlush(_ client: ClientConnection) {
        scheduled.append(client)
        // Inside `deliveringAfter`, written when it returns.
        guard deliveryDepth == 0 else { return }
        scheduleFlushTask()
    }

    private func scheduleFlushTask() {
        do {
            try flushTask?.schedule()
        } catch {
            // Only once the loop has finished: the output waits for the next flush.
            log.log(.error, "cannot schedule writing to clients", ["error": "\(error)"])
        }
    }

    /// Runs `body` (a device's dispatch: its frames, gestures and touch lines), then writes
    /// the output it gathered for the clients at once, in the same dispatch, instead of in
    /// a turn of the loop of its own (the deferred task: a loop turn cost as much as a
    /// third of a frame's lines). What is written, and in which order, is unchanged:
    /// every client still gets one flush after the whole dispatch, at most
    /// `maximumFlushesPerDispatch` of them (the rest on the loop's next turn), and a client
    /// whose socket is full is not written to until it is writable (docs/protocol.md
    /// "Limits and slow clients"). Nested calls write once, when the outermost returns.
    func deliveringAfter<Result>(_ body: () -> Result) -> Result {
        deliveryDepth += 1
        let result = body()
        deliveryDepth -= 1
        if deliveryDepth == 0, !scheduled.isEmpty {
            flushScheduled(limit: Self.maximumFlushesPerDispatch)
        }
        return result
    }

    /// Flushes the clients with new output, at most `limit` of them (the rest on the
    /// loop's next turn, so that thousands of clients waking at once cannot hold the loop).
    private func flushScheduled(limit: Int = .max) {
        let count = min(limit, scheduled.count)
        for client in scheduled[..<count] {
            client.flushScheduled()
        }
        scheduled.removeFirst(count)
        if !scheduled.isEmpty {
            scheduleFlushTask()
        }
    }

    func closed(_ client: ClientConnection) {
        clients[client.id] = nil
        budget.clients = clients.count
        // A descriptor just freed.
        admission?.clientLeft()
        changed(.clientsChanged)
        if client.subscription.touches {
            wantsTouches = clients.values.contains { $0.subscription.touches }
        }
        log.log(.debug, "client closed", client.metadata())
    }

    // MARK: Stopping

    /// Says goodbye to every client, closes them and the listener (removing the socket
    /// file the daemon created). Events already queued for a client (the cancellations that
    /// stopping produced among them) are written first, as far as its socket takes them
    /// without blocking, so the goodbye is the last line, not a cut. Idempotent.
    func stop(reason: String) {
        guard !stopped else { return }
        stopped = true
        admission?.stopAccepting()
        flushScheduled()
        // What a client's socket takes now goes before its goodbye; a blocked (stalled)
        // client gets one try in `close`, not a refill: 2 000 stalled clients must not
        // make stopping slow.
        for client in Array(clients.values) {
            client.flush()
        }
        flushTask?.cancel()
        let farewell = WireEncoder.encode(.goodbye(reason: reason))
        for client in Array(clients.values) {
            client.close(farewell: farewell)
        }
        admission?.closeListener()
    }
}
