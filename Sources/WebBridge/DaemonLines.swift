import NIOCore

/// Splits the daemon's stream into its newline-terminated lines (without the newline). A
/// line longer than `maximumLength` is an error: the daemon never sends one, so the stream
/// is not the daemon's.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Far above any real line (a `hello` or `status` with 64 devices is a few KiB).
    static let maximumLength = 1 << 20

    struct LineTooLong: Error, CustomStringConvertible {
        var description: String { "the daemon sent a line longer than \(LineDecoder.maximumLength) bytes" }
    }

    private var searchedUpTo = 0

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let newline = view[(view.startIndex + searchedUpTo)...].firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            let line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            searchedUpTo = 0
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
        searchedUpTo = view.count
        if searchedUpTo > Self.maximumLength {
            throw LineTooLong()
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // An unterminated last line is dropped: a line is only a message once complete.
        try decode(context: context, buffer: &buffer)
    }
}

/// The messages the bridge writes itself, in the daemon's format (docs/protocol.md).
enum BridgeMessage {
    static func overflow(dropped: Int) -> String {
        #"{"type":"overflow","dropped":\#(dropped)}"#
    }

    static func goodbye(reason: String) -> String {
        #"{"type":"goodbye","reason":\#(jsonString(reason))}"#
    }

    static func error(_ message: String) -> String {
        #"{"type":"error","message":\#(jsonString(message))}"#
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Whether a daemon line is an event (it carries `seq` and may be dropped for a slow
    /// browser), a `pong` (only the latest is kept) or another reply. The daemon writes `type` first in every message.
    static func kind(of line: ByteBuffer) -> DeliveryQueue<ByteBuffer>.Kind {
        for prefix in eventPrefixes where line.readableBytesView.starts(with: prefix) {
            return .event
        }
        if line.readableBytesView.starts(with: pongPrefix) {
            return .pong
        }
        return .reply
    }

    private static let pongPrefix = Array(#"{"type":"pong""#.utf8)

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

    private static let eventPrefixes: [[UInt8]] = [#"{"type":"gesture""#, #"{"type":"touch""#, #"{"type":"device""#].map { Array($0.utf8) }
}
