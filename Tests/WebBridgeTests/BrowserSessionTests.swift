import GestureCore
import GestureProtocol
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import WebBridge

/// A `BrowserSession` driven directly: the browser's WebSocket is one `EmbeddedChannel`, its
/// daemon connection another on the same `EmbeddedEventLoop`, made when the test says so.
/// Frames and lines are written and read by hand; nothing waits.
private final class SessionHarness {
    let loop = EmbeddedEventLoop()
    let browser: EmbeddedChannel
    let daemon: EmbeddedChannel
    let limits: BridgeLimits
    let reads = ReadCounter()
    private let connection: EventLoopPromise<any Channel>

    init(
        clientQueue: Int = 8, slowClient: SlowClientPolicy = .dropOldest, clientMemory: Int = 1 << 20, daemonConnections: Int = 4,
        connected: Bool = true
    ) throws {
        browser = EmbeddedChannel(loop: loop)
        daemon = EmbeddedChannel(loop: loop)
        let logger = Logger(label: "test")
        limits = BridgeLimits(maximumConnections: 8, maximumDaemonConnections: daemonConnections, memoryLimit: 1 << 24, logger: logger)
        let connection = loop.makePromise(of: (any Channel).self)
        self.connection = connection
        let daemon = daemon
        let settings = SessionSettings(
            socketPath: "/run/gestured/test.sock", clientQueue: clientQueue, slowClient: slowClient, clientMemory: clientMemory,
            logger: logger,
            connectDaemon: { _, _, initialize in
                initialize(daemon).flatMap { connection.futureResult }
            })
        try browser.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try browser.pipeline.syncOperations.addHandler(reads)
        try browser.pipeline.syncOperations.addHandler(
            BrowserSession(settings: settings, registry: SessionRegistry(changed: { _ in }), limits: limits, peer: "test"))
        if connected {
            try connectDaemon()
        }
    }

    deinit {
        // A connection attempt the test left open ends (a promise must not be dropped).
        connection.fail(ChannelError.ioOnClosedChannel)
    }

    /// The daemon accepts the connection.
    func connectDaemon() throws {
        try daemon.connect(to: SocketAddress(unixDomainSocketPath: "/run/gestured/test.sock")).wait()
        connection.succeed(daemon)
    }

    /// Connecting to the daemon fails.
    func failDaemon() {
        connection.fail(ChannelError.connectTimeout(.seconds(5)))
    }

    /// The browser sends a text frame.
    func browserSends(_ text: String) throws {
        try browserSends(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)))
    }

    func browserSends(_ frame: WebSocketFrame) throws {
        try browser.writeInbound(frame)
    }

    /// The daemon writes `text` (lines with their newlines) in one read.
    func daemonSends(_ text: String) throws {
        try daemon.writeInbound(ByteBuffer(string: text))
    }

    /// The frames written to the browser so far.
    func framesToBrowser() throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let frame = try browser.readOutbound(as: WebSocketFrame.self) {
            frames.append(frame)
        }
        return frames
    }

    /// The text frames written to the browser so far (failing on any other frame).
    func textsToBrowser() throws -> [String] {
        try framesToBrowser().map { frame in
            #expect(frame.opcode == .text && frame.fin)
            return String(buffer: frame.data)
        }
    }

    /// The lines written to the daemon so far.
    func linesToDaemon() throws -> [String] {
        var lines: [String] = []
        while let line = try daemon.readOutbound(as: ByteBuffer.self) {
            lines.append(String(buffer: line))
        }
        return lines
    }

    /// The browser's connection stops (or starts again) taking data.
    func browserWritable(_ writable: Bool) {
        browser.isWritable = writable
        browser.pipeline.fireChannelWritabilityChanged()
    }

    /// The close frame last written to the browser: its code and reason.
    func closeFrame() throws -> (code: WebSocketErrorCode?, reason: String)? {
        guard var frame = try framesToBrowser().last(where: { $0.opcode == .connectionClose }) else { return nil }
        let code = frame.data.readWebSocketErrorCode()
        return (code, String(buffer: frame.data))
    }
}

/// Counts the reads that pass the session's read gate towards the socket.
private final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = WebSocketFrame
    private(set) var count = 0

    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}

@Suite("BrowserSession: one browser's WebSocket and its daemon connection, driven directly")
struct BrowserSessionTests {
    private static let tap = #"{"type":"gesture","gesture":"tap","phase":"ended","id":1,"seq":1,"time":5}"#

    @Test("every daemon line becomes one text frame, unchanged, written out at the end of the daemon's read")
    func daemonLinesBecomeTextFrames() throws {
        let session = try SessionHarness()
        try session.daemonSends(#"{"type":"hello","protocol":1}"# + "\n" + Self.tap + "\n" + #"{"type":"pon"#)
        #expect(try session.textsToBrowser() == [#"{"type":"hello","protocol":1}"#, Self.tap])
        try session.daemonSends("g\",\"time\":9}\n")
        #expect(try session.textsToBrowser() == [#"{"type":"pong","time":9}"#])
    }

    @Test("every text frame becomes one request line to the daemon")
    func textFramesBecomeRequestLines() throws {
        let session = try SessionHarness()
        try session.browserSends(#"{"type":"subscribe","gestures":["tap"]}"#)
        try session.browserSends(#"{"type":"ping"}"#)
        #expect(try session.linesToDaemon() == [#"{"type":"subscribe","gestures":["tap"]}"# + "\n", #"{"type":"ping"}"# + "\n"])
    }

    /// The browser's frames are not read before the daemon connection is up; those that
    /// came with the upgrade wait, and go in order once it is.
    @Test("requests sent before the daemon answers wait and go in order; the browser is read once it is connected")
    func requestsWaitForTheDaemon() throws {
        let session = try SessionHarness(connected: false)
        session.browser.read()
        #expect(session.reads.count == 0)
        try session.browserSends(#"{"type":"subscribe"}"#)
        try session.browserSends(#"{"type":"status"}"#)
        #expect(try session.linesToDaemon().isEmpty)
        try session.connectDaemon()
        #expect(try session.linesToDaemon() == [#"{"type":"subscribe"}"# + "\n", #"{"type":"status"}"# + "\n"])
        #expect(session.reads.count == 1)
    }

    @Test("more requests than may wait for the daemon close the browser with 1008")
    func tooManyRequestsBeforeTheDaemon() throws {
        let session = try SessionHarness(connected: false)
        for _ in 0..<BrowserSession.maximumPendingRequests {
            try session.browserSends(#"{"type":"ping"}"#)
        }
        #expect(try session.closeFrame() == nil)
        try session.browserSends(#"{"type":"ping"}"#)
        let close = try #require(try session.closeFrame())
        #expect(close.code == .policyViolation)
        #expect(close.reason == "more than 16 requests before the daemon answered")
        #expect(!session.browser.isActive)
        #expect(session.limits.daemonConnections == 0)
    }

    @Test("a daemon that cannot be reached closes the browser with 1011")
    func unreachableDaemon() throws {
        let session = try SessionHarness(connected: false)
        session.failDaemon()
        let close = try #require(try session.closeFrame())
        #expect(close.code == .unexpectedServerError)
        #expect(close.reason.hasPrefix("cannot connect to gestured: "))
        #expect(!session.browser.isActive)
        #expect(session.limits.daemonConnections == 0)
    }

    @Test("past daemon-connections a browser is closed with 1013 and makes no daemon connection")
    func daemonConnectionLimit() throws {
        let session = try SessionHarness(daemonConnections: 0)
        let close = try #require(try session.closeFrame())
        #expect(close.code == BrowserSession.tryAgainLater)
        #expect(close.reason == "too many browsers: try again later")
        #expect(session.limits.refusals[.daemonConnections] == 1)
        try session.daemonSends(Self.tap + "\n")
        #expect(try session.textsToBrowser().isEmpty)
    }

    @Test("a request with a line break is answered by the bridge with an error, not forwarded")
    func requestWithLineBreak() throws {
        let session = try SessionHarness()
        try session.browserSends("{\"type\":\"ping\"}\n{\"type\":\"ping\"}")
        #expect(try session.linesToDaemon().isEmpty)
        #expect(try session.textsToBrowser() == [#"{"type":"error","message":"a request is one line of JSON: no line breaks"}"#])
    }

    @Test("a binary frame closes the browser with 1003; its close frame is answered with its own code")
    func binaryAndCloseFrames() throws {
        let binary = try SessionHarness()
        try binary.browserSends(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(string: "{}")))
        #expect(try binary.closeFrame()?.code == .unacceptableData)
        #expect(!binary.daemon.isActive)

        let closing = try SessionHarness()
        var payload = ByteBuffer()
        payload.write(webSocketErrorCode: .normalClosure)
        try closing.browserSends(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
        #expect(try closing.closeFrame()?.code == .normalClosure)
        #expect(!closing.browser.isActive)
        #expect(!closing.daemon.isActive)
        #expect(closing.limits.daemonConnections == 0)
    }

    @Test("a ping is answered with a pong carrying its payload")
    func pingIsAnswered() throws {
        let session = try SessionHarness()
        try session.browserSends(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "are you there")))
        let frames = try session.framesToBrowser()
        #expect(frames.count == 1)
        #expect(frames.first?.opcode == .pong)
        #expect(frames.first.map { String(buffer: $0.data) } == "are you there")
    }

    /// The slow-client policy as the daemon applies it (docs/protocol.md): past the queue
    /// the oldest events go, replies stay, and the browser learns how many it missed before
    /// the next event it reads.
    @Test("a browser that does not read: events held, the oldest dropped past the queue, overflow first when it reads again")
    func slowBrowserDropsOldest() throws {
        let session = try SessionHarness(clientQueue: 2)
        session.browserWritable(false)
        let events = (1...4).map { #"{"type":"gesture","gesture":"tap","seq":\#($0)}"# }
        try session.daemonSends(events.joined(separator: "\n") + "\n" + #"{"type":"status","protocol":1}"# + "\n")
        #expect(try session.textsToBrowser().isEmpty)
        #expect(session.limits.memoryUsed > 0)
        session.browserWritable(true)
        #expect(
            try session.textsToBrowser() == [
                #"{"type":"overflow","dropped":2}"#, events[2], events[3], #"{"type":"status","protocol":1}"#,
            ])
        #expect(session.limits.memoryUsed == 0)
        try session.daemonSends(Self.tap + "\n")
        #expect(try session.textsToBrowser() == [Self.tap])
    }

    /// One classification of lines for the daemon and the bridge: `activity`
    /// lines carry `seq`, so a slow browser may lose them as it loses other events, and is
    /// told how many. Before, the bridge held them as replies, never dropped.
    @Test("activity lines are events for a slow browser: dropped past the queue and counted in the overflow notice")
    func activityLinesAreEvents() throws {
        let session = try SessionHarness(clientQueue: 1)
        session.browserWritable(false)
        let idle = #"{"type":"activity","phase":"idle","seq":1,"time":5}"#
        let active = #"{"type":"activity","phase":"active","seq":2,"time":9}"#
        try session.daemonSends(idle + "\n" + active + "\n")
        session.browserWritable(true)
        #expect(try session.textsToBrowser() == [#"{"type":"overflow","dropped":1}"#, active])
    }

    @Test("a browser that pings without reading holds one pong, the latest, and the daemon's pongs are coalesced apart")
    func pongsAreCoalesced() throws {
        let session = try SessionHarness()
        session.browserWritable(false)
        for payload in ["1", "2", "3"] {
            try session.browserSends(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: payload)))
        }
        try session.daemonSends(#"{"type":"pong","time":1}"# + "\n" + #"{"type":"pong","time":2}"# + "\n")
        #expect(try session.framesToBrowser().isEmpty)
        session.browserWritable(true)
        let frames = try session.framesToBrowser()
        #expect(frames.map(\.opcode) == [.pong, .text])
        #expect(frames.map { String(buffer: $0.data) } == ["3", #"{"type":"pong","time":2}"#])
    }

    @Test("with slow-client = disconnect, a browser past its queue gets goodbye and is closed with 1008")
    func slowBrowserDisconnected() throws {
        let session = try SessionHarness(clientQueue: 2, slowClient: .disconnect)
        session.browserWritable(false)
        try session.daemonSends(String(repeating: Self.tap + "\n", count: 3))
        let frames = try session.framesToBrowser()
        #expect(frames.map(\.opcode) == [.text, .connectionClose])
        #expect(frames.first.map { String(buffer: $0.data) } == #"{"type":"goodbye","reason":"too slow: 2 events unread"}"#)
        #expect(try session.closeFrame() == nil)  // read above
        #expect(!session.browser.isActive)
        #expect(!session.daemon.isActive)
        #expect(session.limits.memoryUsed == 0)
        #expect(session.limits.refusals[.clientMemory] == 1)
    }

    /// A browser that floods requests has at most `maximumRequestsInFlight` answered ahead
    /// of its reading: past them its frames are not read until a reply comes.
    @Test("a browser with the most requests unanswered is not read until a reply comes back")
    func readGateOnRepliesOwed() throws {
        let session = try SessionHarness()
        try session.browserSends(#"{"type":"subscribe"}"#)  // not answered: not counted
        for _ in 0..<BrowserSession.maximumRequestsInFlight {
            try session.browserSends(#"{"type":"ping"}"#)
        }
        #expect(try session.linesToDaemon().count == 1 + BrowserSession.maximumRequestsInFlight)
        session.browser.read()
        #expect(session.reads.count == 0)
        try session.daemonSends(Self.tap + "\n")  // an event is no reply
        #expect(session.reads.count == 0)
        try session.daemonSends(#"{"type":"pong","time":1}"# + "\n")
        #expect(session.reads.count == 1)
    }

    @Test("the browser is not read while its connection or the daemon's does not take data")
    func readGateOnWritability() throws {
        let session = try SessionHarness()
        session.browserWritable(false)
        session.browser.read()
        #expect(session.reads.count == 0)
        session.browserWritable(true)
        #expect(session.reads.count == 1)

        session.daemon.isWritable = false
        session.daemon.pipeline.fireChannelWritabilityChanged()
        session.browser.read()
        #expect(session.reads.count == 1)
        session.daemon.isWritable = true
        session.daemon.pipeline.fireChannelWritabilityChanged()
        #expect(session.reads.count == 2)
    }

    @Test("the daemon closing ends the browser with 1001; a failing daemon connection with 1011")
    func daemonEnds() throws {
        let closed = try SessionHarness()
        try closed.daemon.close().wait()
        let goingAway = try #require(try closed.closeFrame())
        #expect(goingAway.code == .goingAway)
        #expect(goingAway.reason == "gestured closed the connection")
        #expect(!closed.browser.isActive)

        let failed = try SessionHarness()
        try failed.daemonSends(String(repeating: "x", count: LineFramer.defaultMaximumLength + 1))
        let error = try #require(try failed.closeFrame())
        #expect(error.code == .unexpectedServerError)
        #expect(error.reason == "the connection to gestured failed")
        #expect(!failed.daemon.isActive)
        #expect(failed.limits.daemonConnections == 0)
    }
}
