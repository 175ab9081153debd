import GestureProtocol
import NIOCore

/// Splits the daemon's stream into its newline-terminated lines (without the newline), each
/// in a `ByteBuffer` of its own, with the protocol's one framer (`LineFramer`, bounded at
/// `LineFramer.defaultMaximumLength`). A longer line is an error, fired once down the
/// pipeline: the daemon never sends one, so the stream is not the daemon's, and nothing it
/// sends afterwards is passed on. An unterminated last line is dropped: a line is only a
/// message once complete.
final class DaemonLineDecoder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        case reading(LineFramer)
        /// A line was too long: the rest of the stream is ignored.
        case failed
    }

    private var state: State

    init(maximumLength: Int = LineFramer.defaultMaximumLength) {
        state = .reading(LineFramer(maximumLength: maximumLength))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .reading(var framer) = state else { return }
        state = .failed  // no second copy of the framer's buffer while it is appended to
        let lines: [[UInt8]]
        do {
            lines = try framer.append(unwrapInboundIn(data).readableBytesView)
        } catch {
            context.fireErrorCaught(error)
            return
        }
        state = .reading(framer)
        for line in lines {
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: line)))
        }
    }
}

/// The messages the bridge writes itself (`overflow`, `goodbye`, `error`), encoded as the
/// daemon encodes them (`WireEncoder`), and how the bridge tells the daemon's replies to
/// requests apart (for its count of requests in flight; how a line is queued for a slow
/// browser is `DeliveryKind`'s, the daemon's one classification).
enum BridgeMessage {
    /// `message` as one text frame's payload: the daemon's line without its newline.
    static func frame(_ message: ServerMessage, allocator: ByteBufferAllocator) -> ByteBuffer {
        let line = WireEncoder.encode(message)
        return allocator.buffer(bytes: line.dropLast())
    }

    /// Whether a daemon line answers a request (`pong`, `status`, `metrics`, `error`).
    static func isReply(_ line: ByteBuffer) -> Bool {
        replyPrefixes.contains { line.readableBytesView.starts(with: $0) }
    }

    /// Whether a request the bridge forwards gets a reply from the daemon: everything but
    /// `subscribe` (as the JS client and the live view write it) and blank lines
    /// (docs/protocol.md "Requests").
    static func expectsReply(_ request: ByteBuffer) -> Bool {
        let bytes = request.readableBytesView
        return !bytes.starts(with: subscribePrefix) && bytes.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
    }

    private static let replyPrefixes = [#"{"type":"pong""#, #"{"type":"status""#, #"{"type":"metrics""#, #"{"type":"error""#].map {
        Array($0.utf8)
    }
    private static let subscribePrefix = Array(#"{"type":"subscribe""#.utf8)

}
