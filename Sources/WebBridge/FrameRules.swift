import NIOCore
import NIOWebSocket

/// What RFC 6455 requires of the frames a browser sends, checked where a browser could tell
/// (docs/web.md "WebSocket"): every client frame is masked (5.1), no RSV bit is set without
/// a negotiated extension (5.2; the bridge negotiates none), and a close frame carries no
/// code a peer may not send (7.4). A violation closes the connection with 1002.
enum FrameRules {
    /// Why `frame` breaks the rules, or nil.
    static func violation(in frame: WebSocketFrame) -> String? {
        if frame.maskKey == nil {
            return "a client frame must be masked"
        }
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            return "RSV bits set without an extension"
        }
        return nil
    }

    /// The code to answer a close frame's payload with: the browser's own, 1000 for none,
    /// 1002 for one a peer may not send (below 1000, 1004–1006, 1015, unassigned 1016–2999,
    /// or a one-byte payload).
    static func answer(toClose payload: ByteBuffer) -> WebSocketErrorCode {
        var payload = payload
        guard payload.readableBytes > 0 else { return .normalClosure }
        guard let number = payload.readInteger(as: UInt16.self) else { return .protocolError }
        switch number {
        case 1000...1003, 1007...1014, 3000...4999:
            return WebSocketErrorCode(codeNumber: Int(number))
        default:
            return .protocolError
        }
    }

    /// The close code for an error the frame aggregator raised: fragments out of order are
    /// a protocol error (1002), too many or too large ones a message too big (1009).
    static func closeCode(for error: any Error) -> WebSocketErrorCode? {
        guard let error = error as? NIOWebSocketFrameAggregator.Error else { return nil }
        switch error {
        case .accumulatedFrameSizeIsTooLarge, .tooManyFragments:
            return .messageTooLarge
        case .nonFinalFragmentSizeIsTooSmall, .receivedNewFrameWithoutFinishingPrevious,
            .didReceiveFragmentBeforeReceivingTextOrBinaryFrame:
            return .protocolError
        }
    }
}

/// Checks each frame as it comes off the wire (before fragments are joined, which drops the
/// mask) and closes the connection with 1002 on a violation of `FrameRules`.
final class FrameRulesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var closed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        let frame = unwrapInboundIn(data)
        guard let violation = FrameRules.violation(in: frame) else {
            context.fireChannelRead(data)
            return
        }
        closed = true
        var payload = context.channel.allocator.buffer(capacity: 2 + violation.utf8.count)
        payload.write(webSocketErrorCode: .protocolError)
        payload.writeString(violation)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
