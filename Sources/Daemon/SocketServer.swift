import CSystemd
import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// Serves protocol 1 on a listening socket: greets clients, answers their requests, and
/// broadcasts events to each client through its own bounded queue.
///
/// Slow clients: events wait in a per-client queue of `clientQueueLength` lines. When it
/// is full, `drop-oldest` discards the oldest and later tells the client
/// `{"type":"overflow","dropped":N}` ahead of the next line it can take (its `seq` skips
/// the dropped ones); `disconnect` closes the connection after a best-effort
/// `{"type":"goodbye","reason":…}`. Nothing ever blocks: sockets are non-blocking and a
/// client is only watched for writability while it has output pending.
///
/// Many stalled clients cost neither memory nor time without bound: all clients' queued
/// and unsent bytes together stay within `queue-memory` (past it, a client holding more
/// than its share, the budget divided among the clients, is treated as full), and a client
/// whose socket is full is not written to again until it is writable (no system call per
/// event per stalled client). Each dispatch does bounded work (at most
/// `maximumAcceptsPerDispatch` connections accepted, `maximumFlushesPerDispatch` clients
/// written to), so `hello`, `status` and signals
/// are served however many clients are stalled. When `accept` runs out of descriptors
/// (EMFILE, ENFILE) the listener is not polled again until a client goes or a second has
/// passed: no spinning. Every log line a client can trigger is rate-limited.
public final class SocketServer {
    /// The longest request line accepted; a longer one is an error and a close.
    public static let maxLineLength = 64 * 1024
    /// Replies (not events) a client may leave unread before it is disconnected.
    static let maxPendingReplyBytes = 1024 * 1024
    /// Bytes moved from a client's queue into its socket buffer per refill.
    static let refillBytes = 64 * 1024
    /// Connections accepted per dispatch of the listener (the rest wait for the next turn).
    static let maximumAcceptsPerDispatch = 64
    /// Clients written to per turn of the loop (the rest on the next turn).
    static let maximumFlushesPerDispatch = 256
    /// How long accepting pauses when descriptors run out, unless a client goes first (µs).
    static let acceptPause: UInt64 = 1_000_000

    private let loop: EventLoop
    private let listener: UnixListener
    private var listenWatch: IOWatch?
    /// Resumes accepting after a pause for want of descriptors.
    private var acceptTimer: LoopTimer?
    private var acceptPaused = false
    private var flushTask: DeferredTask?
    private var settings: DaemonSettings
    private let version: String
    private let startTime: UInt64
    private var log: RateLimitedLogger
    /// Touch hygiene's lines: one per device and reason a minute (phantoms: one per series).
    private var hygieneLog: RateLimitedLogger
    private var clients: [UInt64: Client] = [:]
    /// Queued and unsent bytes of every client together (see `DaemonSettings.queueMemory`).
    public private(set) var bufferedBytes = 0
    private var dirty: [Client] = []
    private var nextClientID: UInt64 = 1
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The devices announced in `hello` and `status`.
    public private(set) var devices: [DeviceInfo] = []
    public private(set) var counters = StatusMessage.Counters()
    /// When the daemon last read a touch on any device (`status`), kept by the activity watch.
    public internal(set) var lastTouch: Timestamp?
    /// The `idle` line while the daemon is idle: a client connecting then is told at once.
    private var idleLine: EventLine?
    /// Gesture, touch and latency counts for the `metrics` reply (docs/metrics.md).
    public let metrics = DaemonMetrics()
    /// Whether any client asked for raw touch events (skip encoding them otherwise).
    public private(set) var wantsTouches = false
    private var stopped = false
    /// Called when a client connects or goes.
    public var clientsChanged: (() -> Void)?
    /// Called after a client's `subscribe` request took effect.
    public var clientSubscribed: (() -> Void)?

    /// Starts accepting on `listener`.
    public init(loop: EventLoop, listener: UnixListener, settings: DaemonSettings, version: String, logger: Logger) throws(SystemError) {
        self.loop = loop
        self.listener = listener
        self.settings = settings
        self.version = version
        log = RateLimitedLogger(logger: logger, now: { [unowned loop] in loop.now })
        hygieneLog = RateLimitedLogger(
            logger: logger, limiter: LogRateLimiter(interval: Self.hygieneLogInterval, burst: 1), now: { [unowned loop] in loop.now })
        startTime = monotonicMicroseconds()
        listenWatch = try loop.watch(listener.socket, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
            acceptAll()
        }
        acceptTimer = try loop.timer { [unowned self] _ in resumeAccepting() }
        flushTask = try loop.deferredTask { [unowned self] in flushDirty(limit: SocketServer.maximumFlushesPerDispatch) }
    }

    /// Connected clients.
    public var clientCount: Int { clients.count }

    /// Applies new limits and policies; existing queues keep their length until reconnect.
    public func apply(_ settings: DaemonSettings) {
        self.settings = settings
    }

    // MARK: Broadcasting

    /// Sends a gesture event to every client whose subscription accepts it.
    public func broadcast(_ event: GestureEvent, device: String) {
        counters.events += 1
        metrics.count(event, device: device)
        var line: EventLine? = nil
        for client in clients.values where client.subscription.accepts(event, device: device) {
            if line == nil { line = EventLine(GestureMessage(event, device: device)) }
            enqueue(line!, to: client)
        }
    }

    /// Sends the contacts of one frame as `touch` events to clients that asked for them.
    /// Touch hygiene dropped or ended a touch on `device`: counted for `metrics`, and logged
    /// at most once a minute per device and reason (`suppressed=N` says how many were not);
    /// a phantom series is logged when its first touch is dropped, not per touch.
    public func touchFiltered(_ filtered: TouchFiltered, device: String) {
        metrics.countFiltered(filtered.reason, device: device)
        // The metadata is built only for a line that is written (an autoclosure).
        switch filtered.reason {
        case .phantom:
            guard let period = filtered.seriesPeriod else { return }
            hygieneLog.log(
                .notice, "touch hygiene: phantom touches repeating at one point on \(device), dropped until the series breaks",
                [
                    "device": "\(device)", "reason": "phantom", "location": "\(filtered.location.x) \(filtered.location.y)",
                    "period-ms": "\(period.milliseconds)",
                ])
        case .bounce, .repeat, .tooShort, .stuck:
            hygieneLog.log(
                .info, "touch hygiene: touches dropped or ended on \(device) (\(filtered.reason.rawValue))",
                [
                    "device": "\(device)", "reason": "\(filtered.reason.rawValue)",
                    "location": "\(filtered.location.x) \(filtered.location.y)",
                ])
        }
    }

    /// Microseconds between two touch hygiene lines of one device and reason.
    static let hygieneLogInterval: UInt64 = 60_000_000

    public func broadcastTouches(_ frame: TouchFrame, device: String) {
        guard wantsTouches else { return }
        for contact in frame.contacts {
            counters.events += 1
            let line = EventLine(TouchMessage(contact, time: frame.time, device: device))
            for client in clients.values where client.subscription.touches && client.subscription.accepts(device: device) {
                enqueue(line, to: client)
            }
        }
    }

    /// Records a new device and announces it.
    public func deviceAdded(_ device: DeviceInfo, time: Timestamp) {
        devices.append(device)
        announce(device, added: true, time: time)
    }

    /// Forgets a device and announces its removal.
    public func deviceRemoved(_ device: DeviceInfo, time: Timestamp) {
        if let index = devices.firstIndex(of: device) { devices.remove(at: index) }
        announce(device, added: false, time: time)
    }

    private func announce(_ device: DeviceInfo, added: Bool, time: Timestamp) {
        counters.events += 1
        let line = EventLine(DeviceMessage(phase: added ? .added : .removed, seq: 0, time: time, device: device))
        for client in clients.values where client.subscription.accepts(device: device.name) {
            enqueue(line, to: client)
        }
    }

    /// The daemon went idle or active: every client is told (no filter applies).
    func activityChanged(_ message: ActivityMessage) {
        counters.events += 1
        let line = EventLine(message)
        idleLine = message.phase == .idle ? line : nil
        for client in clients.values {
            enqueue(line, to: client)
        }
    }

    private func enqueue(_ event: EventLine, to client: Client) {
        guard !client.closed else { return }
        if isFull(client) {
            // The queue holds what the socket would not take: try the socket first (not
            // when it said it was full: it says when it has room).
            flush(client)
            if client.closed { return }
        }
        if isFull(client) {
            switch settings.slowClientPolicy {
            case .dropOldest:
                if popFirst(from: client) != nil {
                    client.dropped += 1
                    counters.dropped += 1
                } else {
                    // Over its share of the budget with nothing queued (unsent bytes only):
                    // this event is the one dropped.
                    client.dropped += 1
                    counters.dropped += 1
                    return
                }
            case .disconnect:
                // Irreversible: one more try at the socket first (a client that reads,
                // only slower than a burst, may have made room since it said it was full).
                if client.blocked {
                    client.blocked = false
                    flush(client)
                    if client.closed { return }
                    if !isFull(client) {
                        enqueue(event, to: client)
                        return
                    }
                }
                counters.slowDisconnects += 1
                log.log(.notice, "disconnecting slow client", client.metadata(["queued": "\(client.queue.count)"]))
                close(client, farewell: WireEncoder.encode(.goodbye(reason: "too slow: \(client.queue.count) events unread")))
                return
            }
        }
        client.queue.append(event)
        client.queuedBytes += event.byteCount
        bufferedBytes += event.byteCount
        counters.sent += 1
        markDirty(client)
    }

    /// Whether `client` may take no more events now: its queue is full, or all clients
    /// together are over the memory budget and this one holds more than its share.
    private func isFull(_ client: Client) -> Bool {
        client.queue.isFull || (bufferedBytes > settings.queueMemory && client.bufferedBytes >= fairShare)
    }

    /// Each client's share of `queueMemory`.
    private var fairShare: Int { settings.queueMemory / max(1, clients.count) }

    private func popFirst(from client: Client) -> EventLine? {
        guard let event = client.queue.popFirst() else { return nil }
        client.queuedBytes -= event.byteCount
        bufferedBytes -= event.byteCount
        return event
    }

    // MARK: Stopping

    /// Says goodbye to every client, closes them and the listener (removing the socket
    /// file the daemon created). Events already queued for a client (the cancellations that
    /// stopping produced among them) are written first, as far as its socket takes them
    /// without blocking, so the goodbye is the last line, not a cut. Idempotent.
    public func stop(reason: String) {
        guard !stopped else { return }
        stopped = true
        listenWatch?.cancel()
        acceptTimer?.cancel()
        flushDirty()
        // What a client's socket takes now goes before its goodbye; a blocked (stalled)
        // client gets one try in `close`, not a refill: 2 000 stalled clients must not
        // make stopping slow.
        for client in Array(clients.values) where !client.closed && !client.blocked {
            flush(client)
        }
        flushTask?.cancel()
        let farewell = WireEncoder.encode(.goodbye(reason: reason))
        for client in Array(clients.values) {
            close(client, farewell: farewell)
        }
        listener.close()
    }

    // MARK: Accepting

    private func acceptAll() {
        for _ in 0..<SocketServer.maximumAcceptsPerDispatch {
            let accepted: IOResult<FileDescriptor>
            do {
                accepted = try UnixSocket.accept(from: listener.socket)
            } catch {
                switch error.errno {
                case .connectionAbort, .protocolError, .notPermitted:
                    continue  // that connection is gone (or refused by a security module): the next may be fine
                default:
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM or worse: the listener would stay
                    // readable and be retried at once, forever. Stop polling it until a
                    // client goes (a descriptor frees) or the pause has passed.
                    pauseAccepting(error)
                    return
                }
            }
            switch accepted {
            case .wouldBlock:
                return
            case .processed(let fd):
                admit(fd)
            }
        }
    }

    private func pauseAccepting(_ error: SystemError) {
        guard !acceptPaused, !stopped else { return }
        acceptPaused = true
        log.log(.warning, "cannot accept connections: pausing until a client goes or for a second", ["error": "\(error)"])
        do {
            try listenWatch?.setEnabled(false)
        } catch {
            log.log(.error, "cannot pause accepting", ["error": "\(error)"])
        }
        armAcceptTimer()
    }

    private func armAcceptTimer() {
        do {
            try acceptTimer?.schedule(at: loop.now.saturatingAdd(SocketServer.acceptPause))
        } catch {
            log.log(.error, "cannot arm the accept timer: accepting resumes when a client goes", ["error": "\(error)"])
        }
    }

    private func resumeAccepting() {
        guard acceptPaused, !stopped else { return }
        do {
            try listenWatch?.setEnabled(true)
        } catch {
            log.log(.error, "cannot resume accepting: trying again in a second", ["error": "\(error)"])
            armAcceptTimer()
            return
        }
        acceptPaused = false
        do {
            try acceptTimer?.schedule(at: nil)
        } catch {
            log.log(.warning, "cannot disarm the accept timer", ["error": "\(error)"])  // its firing then does nothing
        }
    }

    private func admit(_ fd: FileDescriptor) {
        let credentials = UnixSocket.peerCredentials(fd)
        if clients.count >= settings.maxClients {
            counters.rejected += 1
            log.log(.notice, "refusing client: limit reached", ["limit": "\(settings.maxClients)"])
            refuse(fd, WireEncoder.encode(.error(message: "too many clients (limit \(settings.maxClients))")))
            return
        }
        if !isAllowed(credentials) {
            counters.rejected += 1
            log.log(.notice, "refusing client: not allowed", ["uid": "\(credentials.map { "\($0.uid)" } ?? "?")"])
            refuse(fd, WireEncoder.encode(.error(message: "permission denied")))
            return
        }
        let client = Client(id: nextClientID, fd: fd, queueLength: settings.clientQueueLength, credentials: credentials)
        nextClientID += 1
        do {
            client.watch = try loop.watch(fd, events: UInt32(EPOLLIN.rawValue)) { [unowned self, unowned client] revents in
                handle(client, revents: revents)
            }
        } catch {
            log.log(.error, "cannot watch client", ["error": "\(error)"])
            try? fd.close()
            return
        }
        clients[client.id] = client
        counters.connections += 1
        clientsChanged?()
        log.log(.debug, "client connected", client.metadata())
        reply(.hello(HelloMessage(version: version, devices: devices)), to: client)
        if let idleLine {
            enqueue(idleLine, to: client)
        }
    }

    private func refuse(_ fd: FileDescriptor, _ line: [UInt8]) {
        _ = line.withUnsafeBytes { send(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        try? fd.close()
    }

    private func isAllowed(_ credentials: PeerCredentials?) -> Bool {
        if settings.allowedUsers.isEmpty && settings.allowedGroups.isEmpty { return true }
        guard let credentials else { return false }
        return settings.allowedUsers.contains(credentials.uid) || settings.allowedGroups.contains(credentials.gid)
    }

    // MARK: Client I/O

    private func handle(_ client: Client, revents: UInt32) {
        if revents & UInt32(EPOLLIN.rawValue) != 0 {
            read(client)
        }
        if !client.closed, revents & UInt32(EPOLLOUT.rawValue) != 0 {
            client.blocked = false
            flush(client)
        }
        if !client.closed, revents & (UInt32(EPOLLHUP.rawValue) | UInt32(EPOLLERR.rawValue)) != 0, revents & UInt32(EPOLLIN.rawValue) == 0 {
            log.log(.debug, "client hung up", client.metadata())
            close(client, farewell: nil)
        }
    }

    private func read(_ client: Client) {
        let result: IOResult<Int>
        do {
            result = try SystemCall.posix("recv") {
                readBuffer.withUnsafeMutableBytes { recv(client.fd.rawValue, $0.baseAddress, $0.count, 0) }
            }
        } catch {
            log.log(.debug, "client read failed", client.metadata(["error": "\(error)"]))
            close(client, farewell: nil)
            return
        }
        switch result {
        case .wouldBlock:
            return
        case .processed(0):
            // Half-closed: the client sends no more requests but may still read events.
            client.readClosed = true
            updateInterest(client)
            return
        case .processed(let count):
            client.input.append(contentsOf: readBuffer[0..<count])
        }
        var start = client.input.startIndex
        while !client.closed, let newline = client.input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = client.input[start..<newline]
            start = newline + 1
            if line.count > SocketServer.maxLineLength {
                tooLong(client)
                return
            }
            handleRequest(line, from: client)
        }
        guard !client.closed else { return }
        client.input.removeSubrange(..<start)
        if client.input.count > SocketServer.maxLineLength {
            tooLong(client)
        }
    }

    private func tooLong(_ client: Client) {
        log.log(.notice, "closing client: request line too long", client.metadata())
        close(client, farewell: WireEncoder.encode(.error(message: "request line longer than \(SocketServer.maxLineLength) bytes")))
    }

    private func handleRequest(_ line: ArraySlice<UInt8>, from client: Client) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) { return }
        let request: ClientRequest
        do {
            request = try WireDecoder.request(line)
        } catch {
            log.log(.debug, "bad request", client.metadata(["error": "\(error)"]))
            reply(.error(message: "\(error)"), to: client)
            return
        }
        switch request {
        case .ping:
            reply(.pong(time: Timestamp(microseconds: monotonicMicroseconds())), to: client)
        case .status:
            reply(.status(status), to: client)
        case .metrics:
            reply(.metrics(metricsMessage), to: client)
        case .subscribe(let filters):
            let subscription = Subscription(filters)
            client.subscription = subscription
            wantsTouches = clients.values.contains { $0.subscription.touches }
            log.log(.debug, "client subscribed", client.metadata(["subscription": "\(subscription)"]))
            clientSubscribed?()
        }
    }

    /// The current `status` answer.
    public var status: StatusMessage {
        StatusMessage(
            version: version,
            uptime: (monotonicMicroseconds() - startTime) / 1_000_000,
            lastTouch: lastTouch,
            devices: devices,
            clients: clients.count,
            maxClients: settings.maxClients,
            counters: counters
        )
    }

    /// The current `metrics` answer: built from the counters on the loop thread, so a scrape
    /// costs one walk over at most `DaemonMetrics`' bounded series and never waits.
    public var metricsMessage: MetricsMessage {
        let now = monotonicMicroseconds()
        return metrics.message(
            uptime: (now - startTime) / 1_000_000, devices: devices, clients: clients.count, dropped: counters.dropped,
            now: Timestamp(microseconds: now), wallClock: realtimeMicroseconds())
    }

    private func reply(_ message: ServerMessage, to client: Client) {
        // Past the memory budget, a client that does not read (its socket is full) and holds
        // more than its share gets no more replies queued: it is closed.
        let overBudget = bufferedBytes > settings.queueMemory && client.bufferedBytes >= fairShare && client.blocked
        if client.pendingOutput > SocketServer.maxPendingReplyBytes || overBudget {
            log.log(.notice, "closing client: replies unread", client.metadata())
            close(client, farewell: nil)
            return
        }
        let before = client.output.count
        WireEncoder.append(message, to: &client.output)
        bufferedBytes += client.output.count - before
        markDirty(client)
    }

    private func markDirty(_ client: Client) {
        // A blocked client is flushed when its socket says it is writable.
        guard !client.dirty, !client.blocked else { return }
        client.dirty = true
        dirty.append(client)
        scheduleFlush()
    }

    /// Flushes the dirty clients before the loop next waits. Should sd-event refuse (only
    /// once the loop has finished), the output waits for the next flush, and it is said.
    private func scheduleFlush() {
        do {
            try flushTask?.schedule()
        } catch {
            log.log(.error, "cannot schedule writing to clients", ["error": "\(error)"])
        }
    }

    /// Flushes the clients with new output, at most `limit` of them (the rest on the
    /// loop's next turn, so that thousands of clients waking at once cannot hold the loop).
    private func flushDirty(limit: Int = .max) {
        let count = min(limit, dirty.count)
        let batch = dirty[..<count]
        for client in batch {
            client.dirty = false
            if !client.closed { flush(client) }
        }
        dirty.removeFirst(count)
        if !dirty.isEmpty { scheduleFlush() }
    }

    /// Writes as much as the socket takes; keeps EPOLLOUT interest only while output
    /// remains. Does nothing while the socket is known to be full (`blocked`).
    private func flush(_ client: Client) {
        guard !client.blocked else { return }
        while true {
            if client.outputOffset == client.output.count {
                client.outputOffset = 0
                if client.queue.isEmpty && client.dropped == 0 {
                    // Caught up: give the buffer back (a burst must not pin 64 KiB per client).
                    client.output = []
                    break
                }
                client.output.removeAll(keepingCapacity: true)
                refill(client)
                if client.output.isEmpty { break }
            }
            let result: IOResult<Int>
            do {
                result = try SystemCall.posix("send") {
                    client.output.withUnsafeBytes {
                        send(
                            client.fd.rawValue, $0.baseAddress! + client.outputOffset, $0.count - client.outputOffset,
                            Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                    }
                }
            } catch {
                log.log(.debug, "client write failed", client.metadata(["error": "\(error)"]))
                close(client, farewell: nil)
                return
            }
            switch result {
            case .wouldBlock:
                client.blocked = true
                if client.outputOffset > client.output.count / 2 {
                    client.output.removeSubrange(..<client.outputOffset)
                    client.unsentLines.shift(by: client.outputOffset)
                    client.outputOffset = 0
                }
                updateInterest(client)
                return
            case .processed(let count):
                client.outputOffset += count
                bufferedBytes -= count
                recordDeliveries(client)
            }
        }
        updateInterest(client)
    }

    /// Moves queued events into the output buffer, numbering them, after an overflow
    /// notice when events were dropped (`seq` then skips the dropped ones, as
    /// docs/protocol.md says, so the gap is visible in the numbers too).
    private func refill(_ client: Client) {
        let before = client.output.count
        if client.dropped > 0 {
            WireEncoder.append(.overflow(dropped: client.dropped), to: &client.output)
            client.seq += client.dropped
            client.dropped = 0
        }
        // Past the budget, a stalled client's unsent bytes must stay within its share.
        let limit = bufferedBytes > settings.queueMemory ? max(4096, min(SocketServer.refillBytes, fairShare)) : SocketServer.refillBytes
        while client.output.count < limit, let event = popFirst(from: client) {
            client.seq += 1
            event.append(seq: client.seq, to: &client.output)
            if let time = event.inputTime {
                client.unsentLines.append(end: client.output.count, inputTime: time)
            }
        }
        bufferedBytes += client.output.count - before
    }

    /// Records the delivery latency of the event lines the last `send` completed.
    private func recordDeliveries(_ client: Client) {
        guard client.unsentLines.hasLine(endingBy: client.outputOffset) else { return }
        let now = monotonicMicroseconds()
        while let time = client.unsentLines.popLine(endingBy: client.outputOffset) {
            metrics.recordLatency(now - min(now, time.microseconds))
        }
    }

    private func updateInterest(_ client: Client) {
        var events: UInt32 = client.readClosed ? 0 : UInt32(EPOLLIN.rawValue)
        if client.pendingOutput > 0 || !client.queue.isEmpty { events |= UInt32(EPOLLOUT.rawValue) }
        if events != client.watchedEvents {
            do {
                try client.watch?.setEvents(events)
                client.watchedEvents = events
            } catch {
                // Its socket can no longer be watched as its output needs: let it go.
                log.log(.error, "cannot watch client, closing it", client.metadata(["error": "\(error)"]))
                close(client, farewell: nil)
            }
        }
    }

    /// Closes a client, first trying once to send `farewell` after its pending output.
    private func close(_ client: Client, farewell: [UInt8]?) {
        guard !client.closed else { return }
        if let farewell {
            // The pending output first (a line may be half sent); the farewell only if all
            // of it went. Never blocks, copies nothing.
            let pending = client.pendingOutput
            let sent =
                pending == 0
                ? 0
                : client.output.withUnsafeBytes {
                    send(client.fd.rawValue, $0.baseAddress! + client.outputOffset, pending, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            if sent == pending {
                _ = farewell.withUnsafeBytes {
                    send(client.fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            }
        }
        client.closed = true
        client.watch?.cancel()
        client.watch = nil
        try? client.fd.close()
        bufferedBytes -= client.bufferedBytes
        clients[client.id] = nil
        // A descriptor just freed.
        resumeAccepting()
        clientsChanged?()
        if client.subscription.touches {
            wantsTouches = clients.values.contains { $0.subscription.touches }
        }
        log.log(.debug, "client closed", client.metadata())
    }
}

/// One connection's state.
final class Client {
    let id: UInt64
    let fd: FileDescriptor
    let credentials: PeerCredentials?
    var watch: IOWatch?
    var watchedEvents = UInt32(EPOLLIN.rawValue)
    var subscription = Subscription()
    var input: [UInt8] = []
    /// Bytes ready for the socket (replies and numbered events), from `outputOffset`.
    var output: [UInt8] = []
    var outputOffset = 0
    var queue: BoundedQueue<EventLine>
    /// The event lines in `output` not fully sent yet, for the delivery latency.
    var unsentLines = UnsentLines()
    /// Bytes of the lines in `queue` (with room for their seq).
    var queuedBytes = 0
    /// The socket said it was full (EAGAIN); nothing is written until it is writable.
    var blocked = false
    /// Events dropped since the last overflow notice.
    var dropped: UInt64 = 0
    /// The last seq sent.
    var seq: UInt64 = 0
    var readClosed = false
    var closed = false
    var dirty = false

    init(id: UInt64, fd: FileDescriptor, queueLength: Int, credentials: PeerCredentials?) {
        self.id = id
        self.fd = fd
        self.credentials = credentials
        queue = BoundedQueue(capacity: queueLength)
    }

    var pendingOutput: Int { output.count - outputOffset }
    /// What this client holds of the server's `queueMemory`.
    var bufferedBytes: Int { queuedBytes + pendingOutput }

    func metadata(_ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["client": "\(id)"]
        if let credentials {
            metadata["pid"] = "\(credentials.pid)"
            metadata["uid"] = "\(credentials.uid)"
        }
        return metadata.merging(extra) { $1 }
    }
}
