/// The one declaration of every object of protocol 1 (docs/protocol.md): its fields in wire
/// order, each with its key, its codec and whether it must be present. `WireEncoder` writes
/// and `WireDecoder` reads by these and nothing else (`WireFields.swift` says how).

// MARK: Events

extension GestureMessage {
    /// A gesture line as it is on the wire: the message's common fields read and written in
    /// place (`header`), every kind's own fields side by side, those of other kinds unused
    /// (`GestureMessage.details` holds only its own kind's).
    ///
    /// Encoding moves the message in whole (its strings are not copied: no retain or release
    /// per line) and copies out only the kind's fields, which hold no references.
    struct Line: WireMessage {
        var quotedType: StaticString { "\"gesture\"" }

        /// The message; its `details` are not read or written here (the fields below are).
        var header: GestureMessage
        var kind: GestureKind
        var count: Int
        var direction: SwipeDirection
        var edge: ScreenEdge?
        var drag: Drag
        /// The drag's velocity (a point) or the pinch's or rotate's (a number): one key.
        var velocity: WireVelocity
        var scale: Double
        var rotation: Double

        /// Every field set once (no default values to overwrite: this runs per line).
        @inline(__always)
        private init(
            kind: GestureKind, _ message: consuming GestureMessage, count: Int = 0, direction: SwipeDirection = .left,
            edge: ScreenEdge? = nil, drag: Drag = Line.still, velocity: WireVelocity = WireVelocity(point: .zero),
            scale: Double = 0, rotation: Double = 0
        ) {
            header = message
            self.kind = kind
            self.count = count
            self.direction = direction
            self.edge = edge
            self.drag = drag
            self.velocity = velocity
            self.scale = scale
            self.rotation = rotation
        }

        private static var still: Drag {
            Drag(startLocation: .zero, translation: .zero, velocity: .zero, predictedEndLocation: .zero, predictedEndTranslation: .zero)
        }

        init(wireDefaults: Void) {
            self.init(
                kind: .press,
                GestureMessage(
                    phase: .began, id: 0, seq: 0, time: .zero, device: "", region: nil, fingers: 0, location: .zero, details: .press))
        }

        @inline(__always)
        init(_ message: consuming GestureMessage) {
            let details = message.details
            self.init(header: message, details: details)
        }

        /// The line of `header`'s common fields with `details` (`header.details` is not
        /// read). The header is
        /// moved in once, before the switch: consumed in each case, it was copied and the
        /// original destroyed.
        @inline(__always)
        init(header: consuming GestureMessage, details: borrowing Details) {
            self.init(kind: details.kind, header)
            switch details {
            case .press, .longPress: break
            case .tap(let count): self.count = count
            case .drag(let drag):
                self.edge = drag.edge
                self.drag = drag
                velocity = WireVelocity(point: drag.velocity)
            case .swipe(let direction, let edge, let drag):
                self.direction = direction
                self.edge = edge
                self.drag = drag
                velocity = WireVelocity(point: drag.velocity)
            case .pinch(let scale, let rate):
                self.scale = scale
                velocity = WireVelocity(rate: rate)
            case .rotate(let degrees, let rate):
                rotation = degrees
                velocity = WireVelocity(rate: rate)
            }
        }

        @inline(__always)
        mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
            let location = PointCodec(digits: WireEncoder.locationDigits)
            try v.field("gesture", &kind, NameCodec(what: "gesture"), .required)
            try v.field("phase", &header.phase, NameCodec(what: "phase"), .required)
            try v.field("id", &header.id, UnsignedCodec(), .required)
            try v.seq(&header.seq)
            try v.field("time", &header.time, TimestampCodec(), .required)
            try v.field("device", &header.device, StringCodec(), .required)
            try v.field("region", &header.region, OptionalStringCodec(), .required)
            try v.field("fingers", &header.fingers, IntegerCodec(), .required)
            try v.field("location", &header.location, location, .required)
            try v.field("localLocation", &header.localLocation, NullableCodec(location), .optional)
            try v.field("count", &count, IntegerCodec(), .requiredIf(kind == .tap))
            try v.field("direction", &direction, NameCodec(what: "swipe direction"), .requiredIf(kind == .swipe))
            let moves = kind == .drag || kind == .swipe
            try v.field("edge", &edge, NullableCodec(NameCodec(what: "screen edge")), .requiredIf(moves))
            try v.field("startLocation", &drag.startLocation, location, .requiredIf(moves))
            try v.field("localStartLocation", &drag.localStartLocation, NullableCodec(location), .optional)
            try v.field("translation", &drag.translation, location, .requiredIf(moves))
            // A pinch's and a rotate's velocity came after protocol 1's first release: an
            // older daemon's line has none (read as 0, no estimate).
            let transforms = kind == .pinch || kind == .rotate
            try v.field("velocity", &velocity, VelocityCodec(), moves ? .required : .addedIf(transforms))
            try v.field("predictedEndLocation", &drag.predictedEndLocation, location, .requiredIf(moves))
            try v.field("predictedEndTranslation", &drag.predictedEndTranslation, location, .requiredIf(moves))
            try v.field("scale", &scale, NumberCodec(digits: WireEncoder.scaleDigits), .requiredIf(kind == .pinch))
            try v.field("rotation", &rotation, NumberCodec(digits: WireEncoder.angleDigits), .requiredIf(kind == .rotate))
        }

        /// The message read; `reader` (past the line) for the error of a `velocity` of the
        /// other shape than the gesture's (a number for a drag, a point for a pinch).
        func message(_ reader: JSONReader) throws(ProtocolError) -> GestureMessage {
            var message = header
            switch kind {
            case .press: message.details = .press
            case .tap: message.details = .tap(count: count)
            case .longPress: message.details = .longPress
            case .drag, .swipe:
                guard !velocity.isRate else {
                    throw reader.error(
                        .wrongType(expected: PointCodec.expected.description), field: "velocity", at: velocity.offset ?? 0)
                }
                var drag = drag
                drag.velocity = velocity.point
                drag.edge = edge
                message.details = kind == .drag ? .drag(drag) : .swipe(direction: direction, edge: edge, drag: drag)
            case .pinch, .rotate:
                if let offset = velocity.offset, !velocity.isRate {
                    throw reader.error(.wrongType(expected: "a number"), field: "velocity", at: offset)
                }
                // Absent (an older daemon): `rate` is 0, as where there is no estimate yet.
                message.details =
                    kind == .pinch ? .pinch(scale: scale, velocity: velocity.rate) : .rotate(degrees: rotation, velocity: velocity.rate)
            }
            return message
        }
    }
}

extension TouchMessage: WireMessage {
    var quotedType: StaticString { "\"touch\"" }

    init(wireDefaults: Void) { self.init(phase: .began, touch: 0, seq: 0, time: .zero, device: "", location: .zero) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("phase", &phase, NameCodec(what: "touch phase"), .required)
        try v.field("touch", &touch, UnsignedCodec(), .required)
        try v.seq(&seq)
        try v.field("time", &time, TimestampCodec(), .required)
        try v.field("device", &device, StringCodec(), .required)
        try v.field("location", &location, PointCodec(digits: WireEncoder.locationDigits), .required)
    }
}

extension DeviceMessage: WireMessage {
    var quotedType: StaticString { "\"device\"" }

    init(wireDefaults: Void) { self.init(phase: .added, seq: 0, time: .zero, device: DeviceInfo(name: "", kind: .touchscreen)) }

    /// The device's fields are the line's own (`device` is its name).
    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("phase", &phase, NameCodec(what: "device phase"), .required)
        try v.seq(&seq)
        try v.field("time", &time, TimestampCodec(), .required)
        try v.field("device", &device.name, StringCodec(), .required)
        try v.field("kind", &device.kind, NameCodec(what: "device kind"), .required)
        try v.field("path", &device.path, OptionalStringCodec(), .required)
    }
}

extension ActivityMessage: WireMessage {
    var quotedType: StaticString { "\"activity\"" }

    init(wireDefaults: Void) { self.init(phase: .idle, seq: 0, time: .zero) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("phase", &phase, NameCodec(what: "activity phase"), .required)
        try v.seq(&seq)
        try v.field("time", &time, TimestampCodec(), .required)
    }
}

// MARK: Replies and notices

/// An array of devices as `hello`, `status` and `metrics` list them (`null` reads as none).
var deviceList: ArrayCodec<ObjectCodec<DeviceInfo>> {
    let expected: StaticString = "an array of objects {\"name\",\"kind\",\"path\"}"
    return ArrayCodec(element: ObjectCodec(expected: expected), expected: expected, nullIsEmpty: true)
}

extension DeviceInfo: WireObject {
    init(wireDefaults: Void) { self.init(name: "", kind: .touchscreen) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("name", &name, StringCodec(), .required)
        try v.field("kind", &kind, NameCodec(what: "device kind"), .required)
        try v.field("path", &path, OptionalStringCodec(), .required)
    }
}

extension HelloMessage: WireMessage {
    var quotedType: StaticString { "\"hello\"" }

    init(wireDefaults: Void) { self.init(version: "", devices: []) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("protocol", &self.protocol, IntegerCodec(), .required)
        try v.field("server", &server, StringCodec(), .required)
        try v.field("version", &version, StringCodec(), .required)
        try v.field("devices", &devices, deviceList, .required)
    }
}

extension StatusMessage: WireMessage {
    var quotedType: StaticString { "\"status\"" }

    init(wireDefaults: Void) { self.init(version: "", uptime: 0, devices: [], clients: 0, maxClients: 0, counters: Counters()) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("protocol", &self.protocol, IntegerCodec(), .required)
        try v.field("version", &version, StringCodec(), .required)
        try v.field("uptime", &uptime, UnsignedCodec(), .required)
        try v.field("lastTouch", &lastTouch, NullableCodec(TimestampCodec()), .required)
        try v.field("devices", &devices, deviceList, .required)
        try v.field("clients", &clients, IntegerCodec(), .required)
        try v.field("maxClients", &maxClients, IntegerCodec(), .required)
        try v.field("counters", &counters, ObjectCodec(expected: "an object"), .required)
        try v.field("ghosts", &ghosts, objects(GhostSeries.self), .optional)
    }
}

extension GhostSeries: WireObject {
    init(wireDefaults: Void) { self.init(device: "", location: .zero, period: .zero, count: 0) }

    /// `period` in microseconds, as every time on the wire.
    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("device", &device, StringCodec(), .required)
        try v.field("location", &location, PointCodec(digits: WireEncoder.locationDigits), .required)
        try v.field("period", &period.microseconds, UnsignedCodec(), .required)
        try v.field("count", &count, UnsignedCodec(), .required)
    }
}

extension StatusMessage.Counters: WireObject {
    init(wireDefaults: Void) { self.init() }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("events", &events, UnsignedCodec(), .required)
        try v.field("sent", &sent, UnsignedCodec(), .required)
        try v.field("dropped", &dropped, UnsignedCodec(), .required)
        try v.field("connections", &connections, UnsignedCodec(), .required)
        try v.field("rejected", &rejected, UnsignedCodec(), .required)
        try v.field("slowDisconnects", &slowDisconnects, UnsignedCodec(), .required)
    }
}

/// An array of objects in `metrics` (`null` refused: the field is required).
private func objects<Object: WireObject>(_: Object.Type) -> ArrayCodec<ObjectCodec<Object>> {
    ArrayCodec(element: ObjectCodec(expected: "an array of objects"), expected: "an array of objects")
}

extension MetricsMessage: WireMessage {
    var quotedType: StaticString { "\"metrics\"" }

    init(wireDefaults: Void) {
        self.init(
            uptime: 0, devices: [], clients: 0, dropped: 0, lastTouch: nil, gestures: [], inputs: [],
            latency: LatencyHistogram(buckets: [], count: 0, sum: 0))
    }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("uptime", &uptime, UnsignedCodec(), .required)
        try v.field("devices", &devices, deviceList, .required)
        try v.field("clients", &clients, IntegerCodec(), .required)
        try v.field("dropped", &dropped, UnsignedCodec(), .required)
        try v.field("lastTouch", &lastTouch, NullableCodec(UnsignedCodec()), .required)
        try v.field("gestures", &gestures, objects(GestureSeries.self), .required)
        try v.field("inputs", &inputs, objects(DeviceInputs.self), .required)
        try v.field("latency", &latency, ObjectCodec(expected: "an object"), .required)
    }
}

extension MetricsMessage.GestureSeries: WireObject {
    init(wireDefaults: Void) { self.init(device: "", region: nil, counts: []) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("device", &device, StringCodec(), .required)
        try v.field("region", &region, OptionalStringCodec(), .required)
        try v.field("counts", &counts, objects(MetricsMessage.GestureCount.self), .required)
    }
}

extension MetricsMessage.GestureCount: WireObject {
    init(wireDefaults: Void) { self.init(gesture: .press, phase: .began, count: 0) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("gesture", &gesture, NameCodec(what: "gesture"), .required)
        try v.field("phase", &phase, NameCodec(what: "phase"), .required)
        try v.field("count", &count, UnsignedCodec(), .required)
    }
}

extension MetricsMessage.DeviceInputs: WireObject {
    init(wireDefaults: Void) { self.init(device: "", touches: 0, synDropped: 0) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("device", &device, StringCodec(), .required)
        try v.field("touches", &touches, UnsignedCodec(), .required)
        try v.field("synDropped", &synDropped, UnsignedCodec(), .required)
        try v.field("filtered", &filtered, FilteredCodec(), .optional)
    }
}

/// `"filtered":{"bounce":2,…}`: counts by reason, the reasons as keys; left out when empty.
struct FilteredCodec: FieldCodec {
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .object }

    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> [MetricsMessage.FilteredTouches] {
        guard reader.peek() == .object else { throw reader.wrongType(field, "an object") }
        var filtered: [MetricsMessage.FilteredTouches] = []
        var reasons = try reader.beginObject()
        while let reason = try reader.nextKey(&reasons) {
            filtered.append(MetricsMessage.FilteredTouches(reason: reason.text, count: try reader.unsigned(field: field)))
        }
        return filtered
    }

    func write(_ value: [MetricsMessage.FilteredTouches], to writer: inout JSONWriter) {
        writer.beginObject()
        for filtered in value {
            writer.key(runTime: filtered.reason)
            writer.unsigned(filtered.count)
        }
        writer.endObject()
    }

    func maximumLength(_ value: [MetricsMessage.FilteredTouches]) -> Int {
        value.reduce(3) { $0 + JSONWriter.stringLength($1.reason) + JSONWriter.numberLength }
    }

    func isAbsent(_ value: [MetricsMessage.FilteredTouches]) -> Bool { value.isEmpty }
}

extension MetricsMessage.LatencyHistogram: WireObject {
    init(wireDefaults: Void) { self.init(buckets: [], count: 0, sum: 0) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("buckets", &buckets, objects(Bucket.self), .required)
        try v.field("count", &count, UnsignedCodec(), .required)
        try v.field("sum", &sum, UnsignedCodec(), .required)
    }
}

extension MetricsMessage.LatencyHistogram.Bucket: WireObject {
    init(wireDefaults: Void) { self.init(le: 0, count: 0) }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("le", &le, UnsignedCodec(), .required)
        try v.field("count", &count, UnsignedCodec(), .required)
    }
}

/// A reply or notice with one field besides `type` (`pong`, `error`, `overflow`, `goodbye`).
struct ReplyLine<Codec: FieldCodec>: WireMessage {
    let quotedType: StaticString
    let key: StaticString
    let codec: Codec
    var value: Codec.Value

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field(key, &value, codec, .required)
    }
}

extension ReplyLine where Codec == TimestampCodec {
    static func pong(time: Timestamp = .zero) -> Self { Self(quotedType: "\"pong\"", key: "time", codec: Codec(), value: time) }
}

extension ReplyLine where Codec == StringCodec {
    static func error(message: String = "") -> Self { Self(quotedType: "\"error\"", key: "message", codec: Codec(), value: message) }
    static func goodbye(reason: String = "") -> Self { Self(quotedType: "\"goodbye\"", key: "reason", codec: Codec(), value: reason) }
}

extension ReplyLine where Codec == UnsignedCodec {
    static func overflow(dropped: UInt64 = 0) -> Self {
        Self(quotedType: "\"overflow\"", key: "dropped", codec: Codec(), value: dropped)
    }
}

// MARK: Requests

extension SubscribeRequest: WireMessage {
    var quotedType: StaticString { "\"subscribe\"" }

    init(wireDefaults: Void) { self.init() }

    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        let strings: StaticString = "an array of strings"
        try v.field(
            "gestures", &gestures, NullableCodec(ArrayCodec(element: NameCodec<GestureKind>(what: "gesture"), expected: strings)),
            .optional)
        try v.field(
            "regions", &regions,
            NullableCodec(
                ArrayCodec(element: NullableCodec(StringCodec()), expected: "an array of strings (null: outside every region)")),
            .optional)
        try v.field("devices", &devices, NullableCodec(ArrayCodec(element: StringCodec(), expected: strings)), .optional)
        try v.field("touches", &touches, BoolCodec(nullIsFalse: true), .optional)
    }
}

/// A request with no field of its own (`ping`, `status`, `metrics`): any other is refused.
struct BareRequest: WireObject {
    init(wireDefaults: Void) {}
    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {}
}

// MARK: Wire names, quoted

extension GestureKind: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .press: "\"press\""
        case .tap: "\"tap\""
        case .longPress: "\"long-press\""
        case .drag: "\"drag\""
        case .swipe: "\"swipe\""
        case .pinch: "\"pinch\""
        case .rotate: "\"rotate\""
        }
    }
}

extension GesturePhase: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .began: "\"began\""
        case .changed: "\"changed\""
        case .ended: "\"ended\""
        case .cancelled: "\"cancelled\""
        }
    }
}

extension TouchPhase: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .began: "\"began\""
        case .moved: "\"moved\""
        case .ended: "\"ended\""
        case .cancelled: "\"cancelled\""
        }
    }
}

extension ActivityPhase: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .idle: "\"idle\""
        case .active: "\"active\""
        }
    }
}

extension DevicePhase: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .added: "\"added\""
        case .removed: "\"removed\""
        }
    }
}

extension DeviceInfo.Kind: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .touchscreen: "\"touchscreen\""
        case .touchpad: "\"touchpad\""
        case .replay: "\"replay\""
        }
    }
}

extension SwipeDirection: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .left: "\"left\""
        case .right: "\"right\""
        case .up: "\"up\""
        case .down: "\"down\""
        }
    }
}

extension ScreenEdge: QuotedWireName {
    var quotedName: StaticString {
        switch self {
        case .left: "\"left\""
        case .right: "\"right\""
        case .top: "\"top\""
        case .bottom: "\"bottom\""
        }
    }
}
