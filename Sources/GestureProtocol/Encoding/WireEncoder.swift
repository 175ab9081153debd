/// The one encoder of protocol 1: every message and request as one JSON line, fields in the
/// documented order (docs/protocol.md), numbers in fixed point with trailing zeros trimmed.
/// Appending to a buffer that has room allocates nothing: the daemon's event path and
/// `gestured replay` encode through it.
public enum WireEncoder {
    /// Fraction digits for normalised locations and translations (1e-5 of the screen:
    /// below a pixel on an 8K panel).
    public static let locationDigits = 5
    /// Fraction digits for velocities (normalised units, scale or degrees per second).
    public static let velocityDigits = 4
    /// Fraction digits for pinch scale.
    public static let scaleDigits = 4
    /// Fraction digits for rotation in degrees.
    public static let angleDigits = 2

    /// Appends `message` as one line (ending in a newline) to `line`. `consuming`: a message
    /// passed as a temporary (as the event path does) is encoded where it is, never copied.
    public static func append(_ message: consuming ServerMessage, to line: inout [UInt8]) {
        switch consume message {
        case .hello(var hello): append(&hello, to: &line)
        case .gesture(let gesture): append(gesture, to: &line)
        case .touch(var touch): append(&touch, to: &line)
        case .device(var device): append(&device, to: &line)
        case .activity(var activity): append(&activity, to: &line)
        case .pong(let time):
            var pong = ReplyLine.pong(time: time)
            append(&pong, to: &line)
        case .status(var status): append(&status, to: &line)
        case .metrics(var metrics): append(&metrics, to: &line)
        case .error(let message):
            var error = ReplyLine.error(message: message)
            append(&error, to: &line)
        case .overflow(let dropped):
            var overflow = ReplyLine.overflow(dropped: dropped)
            append(&overflow, to: &line)
        case .goodbye(let reason):
            var goodbye = ReplyLine.goodbye(reason: reason)
            append(&goodbye, to: &line)
        case .unknown(let type):
            JSONWriter.append(to: &line, bound: JSONWriter.keyLength("type") + JSONWriter.stringLength(type) + 3) { w in
                w.beginObject()
                w.key("type")
                w.string(type)
                w.endObject()
                w.endLine()
            }
        }
    }

    /// Appends the gesture line of `gesture` to `line`: what `append(.gesture(gesture), to:)`
    /// writes, without the message wrapped in a `ServerMessage` and switched back out (each
    /// engine event of `gestured replay` and the engine benchmark is encoded through it).
    public static func append(_ gesture: consuming GestureMessage, to line: inout [UInt8]) {
        var fields = GestureMessage.Line(gesture)
        append(&fields, to: &line)
    }

    /// Appends `request` as one line (ending in a newline) to `line`.
    public static func append(_ request: ClientRequest, to line: inout [UInt8]) {
        var bare = BareRequest(wireDefaults: ())
        switch request {
        case .ping: append(&bare, type: "\"ping\"", seq: .number, to: &line)
        case .status: append(&bare, type: "\"status\"", seq: .number, to: &line)
        case .metrics: append(&bare, type: "\"metrics\"", seq: .number, to: &line)
        case .subscribe(var subscribe): append(&subscribe, to: &line)
        }
    }

    /// `message` as one line, ending in a newline.
    public static func encode(_ message: ServerMessage) -> [UInt8] {
        var line: [UInt8] = []
        append(message, to: &line)
        return line
    }

    /// `request` as one line, ending in a newline.
    public static func encode(_ request: ClientRequest) -> [UInt8] {
        var line: [UInt8] = []
        append(request, to: &line)
        return line
    }

    // MARK: Lines

    /// How an event line's `seq` is written: its number, or an empty slot filled in later
    /// (`EventLine`).
    enum Seq {
        case number
        case slot
    }

    /// Appends `message` as one line (read in place, never copied).
    private static func append<Message: WireMessage>(_ message: inout Message, to line: inout [UInt8]) {
        append(&message, type: message.quotedType, seq: .number, to: &line)
    }

    /// Appends `{"type":TYPE,…fields…}` and a newline, in one reservation of the line's
    /// largest possible length (`inout`: the value is read in place, never copied).
    @discardableResult
    private static func append<Object: WireFields>(_ object: inout Object, type: StaticString, seq: Seq, to line: inout [UInt8]) -> Int {
        JSONWriter.append(to: &line, bound: maximumLength(&object, type: type)) { write(&object, type: type, seq: seq, to: &$0) }
    }

    /// `message` as one line in an array of exactly its length (what `EventLine` keeps for
    /// as long as a client's queue holds it), and the offset of its `seq`.
    static func exactLine<Message: WireMessage>(_ message: consuming Message, seq: Seq) -> (bytes: [UInt8], seq: Int) {
        var message = message
        let type = message.quotedType
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength(&message, type: type)) { buffer in
            var writer = JSONWriter(buffer)
            let offset = write(&message, type: type, seq: seq, to: &writer)
            return (Array(UnsafeBufferPointer(rebasing: buffer[..<writer.count])), offset)
        }
    }

    /// The most bytes `write` writes (`FieldMeasure`).
    private static func maximumLength<Object: WireFields>(_ object: inout Object, type: StaticString) -> Int {
        JSONWriter.keyLength("type") + type.utf8CodeUnitCount + FieldMeasure.maximumLength(&object) + 4
    }

    /// Writes `{"type":TYPE,…fields…}` and a newline; returns the offset of `seq`.
    private static func write<Object: WireFields>(_ object: inout Object, type: StaticString, seq: Seq, to w: inout JSONWriter) -> Int {
        w.beginObject()
        w.key("type")
        w.raw(type)
        let offset = FieldWriter.write(&object, to: &w, seq: seq)
        w.endObject()
        w.endLine()
        return offset
    }
}
