import Logging
import NIOCore
import NIOHTTP1

/// Answers plain HTTP requests with `Routes` (NIO's HTTP/1.1 codec does the framing). A
/// WebSocket upgrade that `Routes.mayUpgrade` refused arrives here as a plain request and
/// gets its 403, with a log line.
///
/// A connection must send a complete request within `requestTimeout` of connecting or of
/// its last response, or it is closed: idle keep-alive connections, half-sent headers and
/// bodies trickled a byte at a time do not hold a descriptor for long (docs/web.md
/// "Limits"). A connection whose responses it does not read is not read from either
/// (`BackPressureHandler` in front of the codec), so pipelined requests cannot pile up
/// responses. A parse error closes the connection after NIO's 400.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: Routes
    private let logger: Logger
    /// The daemon's socket, asked by `/metrics`.
    private let socketPath: String
    private let limits: BridgeLimits
    private let requestTimeout: TimeAmount
    private var head: HTTPRequestHead?
    private var timeout: Scheduled<Void>?
    /// A complete request that waits for the connection to take data again before it is
    /// answered (NIO's pipelining handler passes on one request at a time).
    private var waiting: HTTPRequestHead?

    init(routes: Routes, socketPath: String, limits: BridgeLimits, requestTimeout: TimeAmount, logger: Logger) {
        self.routes = routes
        self.socketPath = socketPath
        self.limits = limits
        self.requestTimeout = requestTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        armTimeout(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("HTTP connection error: \(error)")
        // NIO's HTTPServerProtocolErrorHandler has answered a parse error with 400 and
        // `Connection: close`: close, as it says. (A refused upgrade raises an error too,
        // and then reaches `channelRead` for its 403: that connection stays.)
        if error is HTTPParserError {
            context.close(promise: nil)
        }
    }

    private func armTimeout(context: ChannelHandlerContext) {
        timeout?.cancel()
        let channel = context.channel
        let limit = requestTimeout
        let logger = logger
        timeout = context.eventLoop.scheduleTask(in: limit) {
            logger.debug("closing a connection without a complete request for \(limit)")
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break  // no endpoint takes a body
        case .end:
            guard let head else { return }
            self.head = nil
            timeout?.cancel()
            timeout = nil
            // A client that does not read its responses gets no more of them: at most one
            // response (and NIO's 32 KiB) waits for it, however many requests it pipelines.
            guard context.channel.isWritable else {
                waiting = head
                return
            }
            respond(to: head, context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let head = waiting {
            waiting = nil
            respond(to: head, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        // Every route checks Host: a DNS-rebinding page must not read /metrics or /regions.
        if case .refused(let reason) = routes.policy.decide(host: head.headers.first(name: "host")) {
            var reply = HTTPReply(.forbidden, text: "refused: \(reason)")
            reply.refusal = reason
            send(reply, to: head, context: context)
            return
        }
        guard Routes.path(of: head.uri) == Routes.metricsPath, head.method == .GET || head.method == .HEAD else {
            send(routes.reply(to: head), to: head, context: context)
            return
        }
        // A scraper sends no Origin, and a page of another origin cannot read the answer
        // (no CORS headers). The daemon is asked without blocking the loop, on one of the
        // bridge's bounded daemon connections; NIO's pipelining handler holds further
        // requests of this connection meanwhile.
        guard limits.openDaemonConnection() else {
            send(HTTPReply(.serviceUnavailable, text: "too many connections to gestured: try again later"), to: head, context: context)
            return
        }
        let limits = limits
        MetricsScrape.fetch(socketPath: socketPath, on: context.eventLoop).assumeIsolated().whenComplete { result in
            limits.closeDaemonConnection()
            if case .failure(let error) = result {
                self.logger.debug("scrape without gestured: \(error)")
            }
            self.send(
                HTTPReply(.ok, contentType: MetricsExposition.contentType, body: MetricsExposition.render(result.mapError { $0 })),
                to: head, context: context)
        }
    }

    private func send(_ reply: HTTPReply, to head: HTTPRequestHead, context: ChannelHandlerContext) {
        if let refusal = reply.refusal {
            let peer = context.channel.remoteAddress.map(Bridge.describe) ?? "?"
            logger.notice("refused \(head.method) \(Routes.path(of: head.uri)) from \(peer): \(refusal)")
        }
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: reply.contentType)
        headers.add(name: "content-length", value: String(reply.body.count))
        headers.add(name: "cache-control", value: "no-cache")
        headers.add(name: "x-content-type-options", value: "nosniff")
        headers.add(name: "content-security-policy", value: "default-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'")
        for (name, value) in reply.headers {
            headers.add(name: name, value: value)
        }
        let keepAlive = head.isKeepAlive
        if !keepAlive {
            headers.add(name: "connection", value: "close")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: reply.status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply.body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive {
                channel.close(promise: nil)
            }
        }
        if keepAlive {
            armTimeout(context: context)
        }
    }
}
