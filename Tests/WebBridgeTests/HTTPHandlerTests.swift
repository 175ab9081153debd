import ConfigFile
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import WebBridge

@Suite("HTTP connections: timeouts and limits, on a virtual clock")
struct HTTPHandlerTests {
    private func channel(timeout: TimeAmount = .seconds(10)) throws -> EmbeddedChannel {
        let routes = Routes(
            policy: OriginPolicy(allowedOrigins: [], allowedHosts: []), webRoot: "/nonexistent", daemonConfig: "/nonexistent")
        let logger = Logger(label: "test")
        let limits = BridgeLimits(maximumConnections: 10, maximumDaemonConnections: 1, memoryLimit: 1 << 20, logger: logger)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            HTTPHandler(routes: routes, socketPath: "/nonexistent", limits: limits, requestTimeout: timeout, logger: logger))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    private func head(_ uri: String) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: ["Host": "127.0.0.1"]))
    }

    /// Before, silent, keep-alive and half-sent connections stayed open forever (1 030
    /// of them exhausted the descriptors). Fails on the earlier code (no timeout):
    /// a connection without a complete request within `request-timeout` is closed.
    @Test("a connection that sends nothing, or half a request, is closed after the timeout")
    func silentAndHalfSentConnectionsAreClosed() throws {
        let silent = try channel()
        silent.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(silent.isActive)
        silent.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!silent.isActive)

        let halfSent = try channel()
        try halfSent.writeInbound(head("/"))  // headers, but never the end
        halfSent.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!halfSent.isActive)
    }

    @Test("each response starts the timeout afresh for the next request of a keep-alive connection")
    func keepAliveConnectionsGetTheTimeoutAfterEachResponse() throws {
        let channel = try channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(8))
        try channel.writeInbound(head("/"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        guard case .head(let response)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no response")
            return
        }
        #expect(response.status == .notFound)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    /// 100 000 pipelined `GET /live.js` from a client that never reads grew the
    /// bridge to 1.58 GB: every request was answered into NIO's buffer. Fails on the earlier code
    /// (the response was written at once): a request that arrives while
    /// the connection does not take data waits, unanswered, until it does.
    @Test("a request is not answered while the connection does not take data")
    func noResponseWhileUnwritable() throws {
        let channel = try channel()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        try channel.writeInbound(head("/"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        guard case .head(let response)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no response once writable")
            return
        }
        #expect(response.status == .notFound)
    }

    /// Each limit of the bridge refuses past its maximum, gives room back
    /// when released, and the memory budget refuses the browser whose bytes take the total
    /// past it. Fails on the earlier code (no such limits).
    @Test("the bridge's limits refuse past their maximum and give room back")
    func bridgeLimits() {
        let limits = BridgeLimits(maximumConnections: 2, maximumDaemonConnections: 1, memoryLimit: 1_000, logger: Logger(label: "test"))
        #expect(limits.openConnection() && limits.openConnection())
        #expect(!limits.openConnection())
        limits.closeConnection()
        #expect(limits.openConnection())
        #expect(limits.openDaemonConnection())
        #expect(!limits.openDaemonConnection())
        #expect(limits.memoryChanged(from: 0, to: 600))
        #expect(!limits.memoryChanged(from: 0, to: 600))  // the second browser's bytes go past
        #expect(limits.memoryChanged(from: 600, to: 0))  // closed: its bytes come back
        #expect(limits.memoryChanged(from: 600, to: 100))  // a shrinking browser is never refused
        #expect(limits.memoryUsed == 100)
        #expect(limits.refusals == [.connections: 1, .daemonConnections: 1, .memory: 1])
    }
}
