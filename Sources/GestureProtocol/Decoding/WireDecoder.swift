/// The one strict decoder of protocol 1: a line (with or without its newline) into a typed
/// message or request, or a `ProtocolError` naming the problem, the field and the byte.
///
/// Server messages: unknown fields are ignored (later versions add fields, docs/protocol.md
/// "Transport"), a type this decoder does not know is `.unknown`, every documented field
/// must be present with its documented JSON type. Requests: unknown types and unknown
/// fields are refused, so a misspelt option is an error rather than silently ignored.
public enum WireDecoder {
    /// Arrays and objects nested deeper than this are refused (a hostile line of 64 KiB of
    /// `[` must not exhaust the stack).
    public static let maximumDepth = 64

    /// Decodes one line from the daemon.
    public static func message<Line: Collection<UInt8>>(_ line: Line) throws(ProtocolError) -> ServerMessage {
        try withBuffer(line) { buffer throws(ProtocolError) in
            var reader = JSONReader(buffer, isRequest: false)
            return try reader.message()
        }
    }

    /// Decodes one line from a client.
    public static func request<Line: Collection<UInt8>>(_ line: Line) throws(ProtocolError) -> ClientRequest {
        try withBuffer(line) { buffer throws(ProtocolError) in
            var reader = JSONReader(buffer, isRequest: true)
            return try reader.request()
        }
    }

    private static func withBuffer<Line: Collection<UInt8>, Result>(
        _ line: Line, _ body: (UnsafeBufferPointer<UInt8>) throws(ProtocolError) -> Result
    ) throws(ProtocolError) -> Result {
        let outcome = line.withContiguousStorageIfAvailable { buffer in
            Swift.Result { () throws(ProtocolError) in try body(buffer) }
        }
        if let outcome { return try outcome.get() }
        return try Array(line).withUnsafeBufferPointer { buffer in
            Swift.Result { () throws(ProtocolError) in try body(buffer) }
        }.get()
    }
}

extension JSONReader {
    /// Reads a request: its `type` decides the declaration its fields are read by
    /// (`MessageFields.swift`).
    mutating func request() throws(ProtocolError) -> ClientRequest {
        guard let found = try validate() else { throw error(.missingType, at: 0) }
        let name = found.type
        type = name
        switch name {
        case "ping":
            _ = try object(BareRequest(wireDefaults: ()), path: "")
            return .ping
        case "status":
            _ = try object(BareRequest(wireDefaults: ()), path: "")
            return .status
        case "metrics":
            _ = try object(BareRequest(wireDefaults: ()), path: "")
            return .metrics
        case "subscribe":
            return .subscribe(try object(SubscribeRequest(wireDefaults: ()), path: ""))
        default:
            type = nil
            throw error(.unknownRequestType(name), field: "type", at: found.offset)
        }
    }

    /// Reads a server message: its `type` decides the declaration its fields are read by
    /// (`MessageFields.swift`); a type this module does not know is `.unknown`.
    mutating func message() throws(ProtocolError) -> ServerMessage {
        guard let name = try validate()?.type else { throw error(.missingType, at: 0) }
        type = name
        switch name {
        case "hello": return .hello(try object(HelloMessage(wireDefaults: ()), path: ""))
        case "gesture": return .gesture(try object(GestureMessage.Line(wireDefaults: ()), path: "").message(self))
        case "touch": return .touch(try object(TouchMessage(wireDefaults: ()), path: ""))
        case "device": return .device(try object(DeviceMessage(wireDefaults: ()), path: ""))
        case "activity": return .activity(try object(ActivityMessage(wireDefaults: ()), path: ""))
        case "pong": return .pong(time: try object(ReplyLine.pong(), path: "").value)
        case "status": return .status(try object(StatusMessage(wireDefaults: ()), path: ""))
        case "metrics": return .metrics(try object(MetricsMessage(wireDefaults: ()), path: ""))
        case "error": return .error(message: try object(ReplyLine.error(), path: "").value)
        case "overflow": return .overflow(dropped: try object(ReplyLine.overflow(), path: "").value)
        case "goodbye": return .goodbye(reason: try object(ReplyLine.goodbye(), path: "").value)
        default: return .unknown(type: name)
        }
    }
}
