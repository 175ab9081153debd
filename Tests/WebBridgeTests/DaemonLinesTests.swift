import GestureProtocol
import NIOCore
import NIOEmbedded
import Testing

@testable import WebBridge

@Suite("The daemon's lines in the bridge: framing, the bridge's own messages, replies")
struct DaemonLinesTests {
    private func decoder(maximumLength: Int = LineFramer.defaultMaximumLength) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(DaemonLineDecoder(maximumLength: maximumLength))
        return channel
    }

    /// Everything the decoder passed on, as text.
    private func lines(_ channel: EmbeddedChannel) throws -> [String] {
        var lines: [String] = []
        while let line = try channel.readInbound(as: ByteBuffer.self) {
            lines.append(String(buffer: line))
        }
        return lines
    }

    @Test("a line split over reads, several in one read and an empty line each come out once, without the newline")
    func splitsLines() throws {
        let channel = try decoder()
        try channel.writeInbound(ByteBuffer(string: #"{"type":"hel"#))
        #expect(try lines(channel).isEmpty)
        try channel.writeInbound(ByteBuffer(string: "lo\"}\n{\"type\":\"pong\",\"time\":1}\n\n{\"type\":"))
        #expect(try lines(channel) == [#"{"type":"hello"}"#, #"{"type":"pong","time":1}"#, ""])
        try channel.writeInbound(ByteBuffer(string: "\"status\"}\n"))
        #expect(try lines(channel) == [#"{"type":"status"}"#])
        #expect(try channel.finish().isClean)
    }

    @Test("an unterminated last line is not a message: nothing is passed on at the end of the stream")
    func dropsUnterminatedLastLine() throws {
        let channel = try decoder()
        try channel.writeInbound(ByteBuffer(string: "{\"type\":\"pong\",\"time\":1}\n{\"type\":\"go"))
        #expect(try lines(channel) == [#"{"type":"pong","time":1}"#])
        channel.pipeline.fireChannelInactive()
        #expect(try lines(channel).isEmpty)
    }

    /// The bound is the protocol's one framer's: a line one byte over it fails the stream,
    /// and nothing the daemon sends afterwards is passed on.
    @Test("a line longer than the bound fails the stream once; nothing after it is passed on")
    func lineTooLong() throws {
        let channel = try decoder(maximumLength: 8)
        try channel.writeInbound(ByteBuffer(string: "12345678"))  // at the bound: still a line in the making
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        #expect(throws: LineFramer.LineTooLong(limit: 8)) {
            try channel.writeInbound(ByteBuffer(string: "9"))
        }
        try channel.writeInbound(ByteBuffer(string: "\n{\"type\":\"pong\",\"time\":1}\n"))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        #expect(try lines(channel).isEmpty)
    }

    /// One encoder for everything the bridge writes: `WireEncoder`'s line without its
    /// newline, byte for byte what the bridge's own writer produced before.
    @Test("the bridge's own messages are the daemon's encoding without the newline, strings escaped")
    func ownMessages() throws {
        let allocator = ByteBufferAllocator()
        func text(_ message: ServerMessage) -> String {
            String(buffer: BridgeMessage.frame(message, allocator: allocator))
        }
        #expect(text(.overflow(dropped: 7)) == #"{"type":"overflow","dropped":7}"#)
        #expect(text(.goodbye(reason: "a \"b\"\n\u{1}\\ é")) == #"{"type":"goodbye","reason":"a \"b\"\n\u0001\\ é"}"#)
        #expect(
            text(.error(message: "a request is one line of JSON: no line breaks\t\r"))
                == #"{"type":"error","message":"a request is one line of JSON: no line breaks\t\r"}"#)
        // And the strict decoder reads them back.
        for message in [ServerMessage.overflow(dropped: 7), .goodbye(reason: "a \"b\"\n\u{1f}"), .error(message: "x\u{0}y")] {
            let frame = BridgeMessage.frame(message, allocator: allocator)
            #expect(try WireDecoder.message(frame.readableBytesView) == message)
        }
    }

    @Test("the replies to requests are pong, status, metrics and error; subscribe and blank lines are not answered")
    func replies() {
        for type in ["pong", "status", "metrics", "error"] {
            #expect(BridgeMessage.isReply(ByteBuffer(string: #"{"type":"\#(type)"}"#)), "\(type)")
        }
        for type in ["hello", "gesture", "overflow", "goodbye", "device"] {
            #expect(!BridgeMessage.isReply(ByteBuffer(string: #"{"type":"\#(type)"}"#)), "\(type)")
        }
        #expect(BridgeMessage.expectsReply(ByteBuffer(string: #"{"type":"ping"}"#)))
        #expect(BridgeMessage.expectsReply(ByteBuffer(string: "not json")))  // the daemon answers with an error
        #expect(!BridgeMessage.expectsReply(ByteBuffer(string: #"{"type":"subscribe","gestures":["tap"]}"#)))
        #expect(!BridgeMessage.expectsReply(ByteBuffer(string: " \t ")))
        #expect(!BridgeMessage.expectsReply(ByteBuffer(string: "")))
    }
}
