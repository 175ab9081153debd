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
    private var head: HTTPRequestHead?

    init(routes: Routes, logger: Logger) {
        self.routes = routes
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
        let reply = routes.reply(to: head)
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
