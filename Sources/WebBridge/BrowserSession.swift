import ConfigFile
import GestureCore
import GestureProtocol
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket

/// Settings every browser connection shares.
struct SessionSettings: Sendable {
    var socketPath: String
    var clientQueue: Int
    var slowClient: SlowClientPolicy
    /// Bytes held for one browser at most (`client-memory`).
    var clientMemory: Int
    var logger: Logger
    /// How long connecting to the daemon (the second half of an upgrade) may take.
    var daemonConnectTimeout = TimeAmount.seconds(5)
    /// How a browser's daemon connection is made: `connectUnixSocket` in the bridge, an
    /// `EmbeddedChannel` in the tests that drive a `BrowserSession` directly.
    var connectDaemon: DaemonConnect = SessionSettings.connectUnixSocket

    /// Makes a daemon connection on `eventLoop` for these settings; `initialize` adds the
    /// session's handlers to it before it is used.
    typealias DaemonConnect =
        @Sendable (
            _ settings: SessionSettings, _ eventLoop: any EventLoop,
            _ initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
        ) -> EventLoopFuture<any Channel>

    /// A connection to the daemon's Unix socket at `socketPath`, given up after
    /// `daemonConnectTimeout`.
    static func connectUnixSocket(
        _ settings: SessionSettings, eventLoop: any EventLoop, initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: eventLoop)
            .connectTimeout(settings.daemonConnectTimeout)
            .channelInitializer(initialize)
            .connect(unixDomainSocketPath: settings.socketPath)
    }
}

/// One browser's WebSocket (docs/web.md "The bridge"): its own connection to the daemon's
/// Unix socket; every line the daemon sends becomes one text frame, unchanged, through a
/// `DeliveryQueue`; every text frame the browser sends becomes one request line.
///
/// Runs on the browser channel's event loop; the daemon connection is made on the same loop.
///
/// A browser's frames are read only while they can be acted on: the daemon connection is
/// up and takes requests, and the browser's own connection takes what is written to it
/// with nothing held. A browser that stops reading is not read from either, so its pings
/// and requests cost nothing until it reads again. The gate is on
/// `read` (not `autoRead`, whose setter reads at once, past the gate).
final class BrowserSession: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum Daemon {
        /// Connecting; the browser's frames are not read until the daemon answers, and
        /// requests that came with the upgrade itself wait here (at most
        /// `maximumPendingRequests`).
        case connecting(pending: [ByteBuffer])
        case connected(any Channel)
        case closed
    }

    /// Unread replies (pongs aside) held for a browser at most: one more closes it (1008).
    static let maximumHeldReplies = 64

    /// Requests a browser may send before the daemon connection is up.
    static let maximumPendingRequests = 16

    private let settings: SessionSettings
    private let registry: SessionRegistry
    private let limits: BridgeLimits
    /// This session holds one of `limits`' daemon connections.
    private var holdsDaemonSlot = false
    private var daemon = Daemon.connecting(pending: [])
    /// The slow-client rules, as the daemon applies them to its socket clients.
    private var queue: DeliveryQueue<ByteBuffer>
    private var context: ChannelHandlerContext?
    /// The close frame has been sent: nothing more is written.
    private var closing = false
    /// A read was asked for while the gate was shut: done when it opens.
    private var readPending = false
    /// The daemon connection takes requests.
    private var daemonWritable = true
    /// Requests forwarded whose reply has not come back from the daemon yet.
    private var repliesOwed = 0
    /// Requests that came in the same read as others while `maximumRequestsInFlight` were
    /// at the daemon: forwarded as replies come back (at most one read's worth, since
    /// nothing more is read meanwhile).
    private var waitingRequests = CircularBuffer<ByteBuffer>()

    /// Requests a browser may have at the daemon at once: past them its frames are not
    /// read until replies come back, so a browser that floods pings has at most this many
    /// answered ahead of its reading, not a socket buffer's worth.
    static let maximumRequestsInFlight = 16
    private let peer: String

    init(settings: SessionSettings, registry: SessionRegistry, limits: BridgeLimits, peer: String) {
        self.settings = settings
        self.registry = registry
        self.limits = limits
        self.peer = peer
        queue = DeliveryQueue(
            limits: DeliveryLimits(
                events: settings.clientQueue, policy: settings.slowClient, bytes: settings.clientMemory, replies: Self.maximumHeldReplies))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        registry.add(self)
        guard limits.openDaemonConnection() else {
            daemon = .closed
            close(code: Self.tryAgainLater, reason: "too many browsers: try again later")
            return
        }
        holdsDaemonSlot = true
        connectDaemon(eventLoop: context.eventLoop)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        registry.remove(self)
        closeDaemon()
        dropQueue()
    }

    /// RFC 6455 7.4.1's 1013, "try again later": the bridge is at one of its limits.
    static let tryAgainLater = WebSocketErrorCode(codeNumber: 1013)

    private func connectDaemon(eventLoop: any EventLoop) {
        let session = NIOLoopBound(self, eventLoop: eventLoop)
        settings.connectDaemon(settings, eventLoop) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(DaemonLineDecoder())
                try channel.pipeline.syncOperations.addHandler(DaemonConnectionHandler(session: session.value))
            }
        }
        .assumeIsolated()
        .whenComplete { result in
            session.value.daemonConnectAttemptEnded(result)
        }
    }

    private func daemonConnectAttemptEnded(_ result: Result<any Channel, any Error>) {
        switch (result, daemon) {
        case (.success(let channel), .connecting(let pending)):
            guard let context else {
                channel.close(promise: nil)
                return
            }
            daemon = .connected(channel)
            settings.logger.debug("browser connected", metadata: ["peer": "\(peer)"])
            for request in pending {
                forwardRequest(request, context: context)
            }
            resumeReading()
        case (.success(let channel), .connected), (.success(let channel), .closed):
            channel.close(promise: nil)
        case (.failure(let error), .connecting):
            daemon = .closed
            settings.logger.warning("cannot connect to gestured at \(settings.socketPath): \(error)")
            close(code: .unexpectedServerError, reason: "cannot connect to gestured: \(error)")
        case (.failure, .connected), (.failure, .closed):
            break
        }
    }

    // MARK: daemon → browser

    /// One line from the daemon.
    func daemonLine(_ line: ByteBuffer) {
        if repliesOwed > 0, BridgeMessage.isReply(line) {
            repliesOwed -= 1
            if case .connected(let channel) = daemon {
                while repliesOwed < Self.maximumRequestsInFlight, let next = waitingRequests.popFirst() {
                    send(next, to: channel)
                }
            }
            resumeReading()
        }
        deliver(line, kind: DeliveryKind(line: line.readableBytesView))
    }

    /// A line for the browser (or, for `.controlPong`, a pong frame's payload) goes
    /// through the queue. The daemon's lines and the bridge's own messages come each in a
    /// buffer of their own (`DaemonLineDecoder`); a ping's payload is a slice of the
    /// browser's read buffer, so one to be held is copied out of it, to keep its own bytes
    /// alive, not the whole buffer it was read into.
    private func deliver(_ line: ByteBuffer, kind: DeliveryKind) {
        guard let context else { return }
        let writable = context.channel.isWritable
        var line = line
        if kind == .controlPong, !writable || !queue.isFlowing {
            line = context.channel.allocator.buffer(buffer: line)
        }
        let heldBefore = queue.heldBytes
        let arrival = queue.arrived(line, kind: kind, size: line.readableBytes, writable: writable)
        guard limits.memoryChanged(from: heldBefore, to: queue.heldBytes) else {
            close(code: Self.tryAgainLater, reason: "the bridge holds too much for its browsers: try again later")
            return
        }
        switch arrival {
        case .send(let line):
            write(line, kind: kind, context: context)
        case .held, .dropped, .ignored:
            break
        case .disconnect(let reason):
            limits.bit(.clientMemory, "a browser that does not read was closed (1008): \(reason)")
            settings.logger.notice("closing a slow browser: \(reason)", metadata: ["peer": "\(peer)"])
            writeText(BridgeMessage.frame(.goodbye(reason: reason), allocator: context.channel.allocator), context: context)
            close(code: .policyViolation, reason: reason)
        }
    }

    /// Gives the queue's bytes back to the bridge's budget.
    private func dropQueue() {
        let held = queue.heldBytes
        queue.close()
        _ = limits.memoryChanged(from: held, to: 0)
    }

    /// The daemon's read burst ended: what was written goes out.
    func daemonReadComplete() {
        context?.flush()
    }

    func daemonClosed() {
        guard case .connected = daemon else { return }
        daemon = .closed
        close(code: .goingAway, reason: "gestured closed the connection")
    }

    func daemonFailed(_ error: any Error) {
        settings.logger.warning("the connection to gestured failed: \(error)", metadata: ["peer": "\(peer)"])
        closeDaemon()
        close(code: .unexpectedServerError, reason: "the connection to gestured failed")
    }

    /// The daemon takes requests again (or not): the browser's frames are read accordingly.
    func daemonWritabilityChanged(isWritable: Bool) {
        daemonWritable = isWritable
        resumeReading()
    }

    // MARK: the read gate

    func read(context: ChannelHandlerContext) {
        if mayRead(context) {
            context.read()
        } else {
            readPending = true
        }
    }

    private func mayRead(_ context: ChannelHandlerContext) -> Bool {
        guard case .connected = daemon else { return false }
        return daemonWritable && repliesOwed < Self.maximumRequestsInFlight && waitingRequests.isEmpty && context.channel.isWritable
            && queue.isFlowing
    }

    private func resumeReading() {
        guard let context, readPending, mayRead(context) else { return }
        readPending = false
        context.read()
    }

    /// Closes the daemon connection. `daemon` is `.closed` before the channel closes: its
    /// close reports `channelInactive` at once, which must not read as the daemon going
    /// (that closed a failed connection with 1001 instead of 1011).
    private func closeDaemon() {
        let state = daemon
        daemon = .closed
        if case .connected(let channel) = state {
            channel.close(promise: nil)
        }
        if holdsDaemonSlot {
            holdsDaemonSlot = false
            limits.closeDaemonConnection()
        }
    }

    // MARK: browser → daemon

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            forwardRequest(frame.unmaskedData, context: context)
        case .binary:
            close(code: .unacceptableData, reason: "text frames only: one JSON request each")
        case .ping:
            // Through the queue like every reply: a browser that pings without reading
            // holds one pong, not one per ping.
            guard !closing else { return }
            deliver(frame.unmaskedData, kind: .controlPong)
            context.flush()
        case .connectionClose:
            // The browser closes: answer with its own code (RFC 6455 5.5.1), or 1002 for a
            // code a peer may not send, then go.
            close(code: FrameRules.answer(toClose: frame.unmaskedData), reason: "")
        case .pong, .continuation:
            break
        default:
            close(code: .protocolError, reason: "unknown opcode")
        }
    }

    private func forwardRequest(_ text: ByteBuffer, context: ChannelHandlerContext) {
        let channel: any Channel
        switch daemon {
        case .connecting(var pending):
            guard pending.count < Self.maximumPendingRequests else {
                close(code: .policyViolation, reason: "more than \(Self.maximumPendingRequests) requests before the daemon answered")
                return
            }
            daemon = .closed  // no second copy of `pending` while it grows
            pending.append(text)
            daemon = .connecting(pending: pending)
            return
        case .connected(let connected):
            channel = connected
        case .closed:
            return
        }
        if text.readableBytesView.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            let reply = BridgeMessage.frame(
                .error(message: "a request is one line of JSON: no line breaks"), allocator: context.channel.allocator)
            deliver(reply, kind: .reply)  // the bridge's own reply: owes nothing to the daemon's count
            context.flush()
            return
        }
        guard repliesOwed < Self.maximumRequestsInFlight, waitingRequests.isEmpty else {
            waitingRequests.append(context.channel.allocator.buffer(buffer: text))
            return
        }
        send(text, to: channel)
    }

    /// One request line to the daemon, counted when it will be answered.
    private func send(_ text: ByteBuffer, to channel: any Channel) {
        var line = channel.allocator.buffer(capacity: text.readableBytes + 1)
        line.writeImmutableBuffer(text)
        line.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(line, promise: nil)
        daemonWritable = channel.isWritable
        if BridgeMessage.expectsReply(text) {
            repliesOwed += 1
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let heldBefore = queue.heldBytes
            let outgoing = queue.becameWritable()
            _ = limits.memoryChanged(from: heldBefore, to: queue.heldBytes)
            for item in outgoing {
                switch item {
                case .overflow(let dropped):
                    writeText(BridgeMessage.frame(.overflow(dropped: dropped), allocator: context.channel.allocator), context: context)
                case .line(let line, let kind):
                    write(line, kind: kind, context: context)
                }
            }
            if !outgoing.isEmpty {
                context.flush()
            }
            resumeReading()
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        settings.logger.debug("browser disconnected", metadata: ["peer": "\(peer)"])
        dropQueue()
        closeDaemon()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        settings.logger.debug("browser connection error: \(error)", metadata: ["peer": "\(peer)"])
        if let code = FrameRules.closeCode(for: error) {
            close(code: code, reason: "\(error)")
            return
        }
        dropQueue()
        closeDaemon()
        context.close(promise: nil)
    }

    // MARK: writing

    /// A line the queue let through: a text frame, or a pong frame for `.controlPong`.
    private func write(_ line: ByteBuffer, kind: DeliveryKind, context: ChannelHandlerContext) {
        switch kind {
        case .controlPong: writeFrame(.pong, line, context: context)
        case .event, .reply, .pong: writeText(line, context: context)
        }
    }

    private func writeText(_ line: ByteBuffer, context: ChannelHandlerContext) {
        writeFrame(.text, line, context: context)
    }

    private func writeFrame(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext) {
        guard !closing else { return }
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, data: data)), promise: nil)
    }

    /// Sends a close frame (the reason cut to the 123 bytes a control frame holds) and
    /// closes the connection once it is written.
    func close(code: WebSocketErrorCode, reason: String) {
        guard let context, !closing else { return }
        closing = true
        dropQueue()
        closeDaemon()
        var data = context.channel.allocator.buffer(capacity: 125)
        data.write(webSocketErrorCode: code)
        var reasonBytes = Array(reason.utf8.prefix(123))
        while String(validating: reasonBytes, as: UTF8.self) == nil {
            reasonBytes.removeLast()  // not in the middle of a character
        }
        data.writeBytes(reasonBytes)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// The daemon side of a `BrowserSession`: lines in, writability, the end.
private final class DaemonConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let session: BrowserSession

    init(session: BrowserSession) {
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        session.daemonLine(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        session.daemonReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        session.daemonWritabilityChanged(isWritable: context.channel.isWritable)
    }

    func channelInactive(context: ChannelHandlerContext) {
        session.daemonClosed()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        session.daemonFailed(error)
        context.close(promise: nil)
    }
}

/// The open browser sessions (for the stop and the service status), on the one event loop.
final class SessionRegistry {
    private var sessions: [ObjectIdentifier: BrowserSession] = [:]
    private let changed: (Int) -> Void

    /// `changed` is called with the number of sessions after each change.
    init(changed: @escaping (Int) -> Void) {
        self.changed = changed
    }

    var count: Int { sessions.count }

    func add(_ session: BrowserSession) {
        sessions[ObjectIdentifier(session)] = session
        changed(sessions.count)
    }

    func remove(_ session: BrowserSession) {
        if sessions.removeValue(forKey: ObjectIdentifier(session)) != nil {
            changed(sessions.count)
        }
    }

    /// Every browser gets a close frame with `reason`.
    func closeAll(reason: String) {
        for session in sessions.values {
            session.close(code: .goingAway, reason: reason)
        }
    }
}
