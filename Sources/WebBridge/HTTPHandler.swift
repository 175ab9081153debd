import Logging
import NIOCore
import NIOHTTP1

/// Answers plain HTTP requests with `Routes` (NIO's HTTP/1.1 codec does the framing). A
/// WebSocket upgrade that `Routes.mayUpgrade` refused arrives here as a plain request and
/// gets its 403, with a log line.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: Routes
    private let logger: Logger
    /// The daemon's socket, asked by `/metrics`.
    private let socketPath: String
    private var head: HTTPRequestHead?

    init(routes: Routes, socketPath: String, logger: Logger) {
        self.routes = routes
        self.socketPath = socketPath
        self.logger = logger
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
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard Routes.path(of: head.uri) == Routes.metricsPath, head.method == .GET || head.method == .HEAD else {
            send(routes.reply(to: head), to: head, context: context)
            return
        }
        // No origin check: a scraper sends no Origin, and a page of another origin cannot
        // read the answer (no CORS headers). The daemon is asked without blocking the loop;
        // NIO's pipelining handler holds further requests of this connection meanwhile.
        MetricsScrape.fetch(socketPath: socketPath, on: context.eventLoop).assumeIsolated().whenComplete { result in
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
    }
}
