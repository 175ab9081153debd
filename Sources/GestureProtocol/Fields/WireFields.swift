/// The declarative core of the codec: every JSON object of protocol 1 declares its fields
/// once (`WireObject.visitFields`, in `MessageFields.swift`), each with its key, its codec
/// (how its value is read and written) and whether it must be present, and four visitors
/// walk that one declaration:
///
/// - `FieldMeasure` (encoding): an upper bound of the object's length, reserved in one go;
/// - `FieldWriter` (encoding): the fields in declaration order, which is the wire order;
/// - `FieldReader` (decoding): the field a member's key names, read into the value;
/// - `RequiredFields` (decoding): the first required field the line lacked.
///
/// Visitors and codecs are generic structs, so each message's encoder is specialised into
/// straight-line code: no existential, closure or key path per field.
protocol WireFields {
    /// Visits every field in wire order, passing each to `visitor` as `inout` so that one
    /// declaration serves reading and writing.
    mutating func visitFields<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws(ProtocolError)
}

/// An object that decoding can start from blank: a nested object, or a message.
protocol WireObject: WireFields {
    /// A value each of whose fields decoding overwrites (what a line is decoded into).
    init(wireDefaults: Void)
}

/// A top-level message or request: fields whose first member is `"type"`.
protocol WireMessage: WireFields {
    /// `"type"`'s value, quoted (`"\"touch\""`).
    var quotedType: StaticString { get }
}

/// Whether a field is on the wire.
enum Presence {
    /// Always written; decoding fails without it.
    case required
    /// Written unless its codec calls the value absent (`nil`, an empty list); may be absent.
    case optional
    /// Required when the condition holds (a gesture kind's own fields), left out otherwise.
    case requiredIf(Bool)
    /// Written when the condition holds, never required: a field a later release added to
    /// a kind's line, which an older daemon's line of that kind lacks.
    case addedIf(Bool)

    /// Whether decoding fails without the field.
    var isRequired: Bool {
        switch self {
        case .required: true
        case .optional: false
        case .requiredIf(let condition): condition
        case .addedIf: false
        }
    }

    /// Whether the encoder writes a field with this presence, codec and value.
    @inline(__always)
    func isWritten<Codec: FieldCodec>(_ value: Codec.Value, _ codec: Codec) -> Bool {
        switch self {
        case .required: true
        case .optional: !codec.isAbsent(value)
        case .requiredIf(let condition), .addedIf(let condition): condition
        }
    }
}

/// What a declaration passes each field to.
protocol FieldVisitor {
    /// One field: `key` on the wire, `value` in the Swift value.
    mutating func field<Codec: FieldCodec>(_ key: StaticString, _ value: inout Codec.Value, _ codec: Codec, _ presence: Presence)
        throws(ProtocolError)

    /// An event's `seq` (the encoder may leave a slot for it instead of a number).
    mutating func seq(_ value: inout UInt64) throws(ProtocolError)
}

extension FieldVisitor {
    mutating func seq(_ value: inout UInt64) throws(ProtocolError) {
        try field("seq", &value, UnsignedCodec(), .required)
    }
}

/// How a value of one JSON shape is read and written. `field` is the field's path for
/// errors (`location`, `counters.sent`).
protocol FieldCodec {
    associatedtype Value

    /// Whether the next value may be one of these (checked for arrays' elements, whose
    /// errors name the array).
    func accepts(_ kind: JSONReader.ValueKind) -> Bool
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Value
    func write(_ value: Value, to writer: inout JSONWriter)
    /// The most bytes `write` writes for `value` (its comma included).
    func maximumLength(_ value: Value) -> Int
    /// Whether an `.optional` field with this value is left out.
    func isAbsent(_ value: Value) -> Bool
}

extension FieldCodec {
    func isAbsent(_ value: Value) -> Bool { false }
}

// MARK: Scalars

/// A codec of JSON numbers: at most `JSONWriter.numberLength` bytes.
protocol NumberFieldCodec: FieldCodec {}

extension NumberFieldCodec {
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .number }
    func maximumLength(_ value: Value) -> Int { JSONWriter.numberLength }
}

struct UnsignedCodec: NumberFieldCodec {
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> UInt64 { try reader.unsigned(field: field) }
    @inline(__always)
    func write(_ value: UInt64, to writer: inout JSONWriter) { writer.unsigned(value) }
}

struct IntegerCodec: NumberFieldCodec {
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Int { try reader.integer(field: field) }
    @inline(__always)
    func write(_ value: Int, to writer: inout JSONWriter) { writer.integer(value) }
}

/// A `Timestamp` as its microseconds.
struct TimestampCodec: NumberFieldCodec {
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Timestamp {
        Timestamp(microseconds: try reader.unsigned(field: field))
    }
    @inline(__always)
    func write(_ value: Timestamp, to writer: inout JSONWriter) { writer.unsigned(value.microseconds) }
}

/// A number in fixed point with `digits` fraction digits (`WireEncoder.locationDigits` …).
struct NumberCodec: NumberFieldCodec {
    let digits: Int
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Double { try reader.double(field: field) }
    @inline(__always)
    func write(_ value: Double, to writer: inout JSONWriter) { writer.number(value, digits: digits) }
}

/// `true` or `false`; with `nullIsFalse`, `null` reads as false (`subscribe`'s `touches`).
struct BoolCodec: FieldCodec {
    var nullIsFalse = false
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .bool || (nullIsFalse && kind == .null) }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Bool {
        if nullIsFalse, try reader.null() { return false }
        return try reader.bool(field: field)
    }
    func write(_ value: Bool, to writer: inout JSONWriter) { writer.bool(value) }
    func maximumLength(_ value: Bool) -> Int { JSONWriter.numberLength }
}

struct StringCodec: FieldCodec {
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .string }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> String { try reader.string(field: field) }
    @inline(__always)
    func write(_ value: String, to writer: inout JSONWriter) { writer.string(value) }
    func maximumLength(_ value: String) -> Int { JSONWriter.stringLength(value) }
}

/// A string or `null` (a region, a device's path): "a string or null" when it is neither.
struct OptionalStringCodec: FieldCodec {
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .string || kind == .null }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> String? {
        try reader.optionalString(field: field)
    }
    @inline(__always)
    func write(_ value: String?, to writer: inout JSONWriter) { writer.optionalString(value) }
    func maximumLength(_ value: String?) -> Int { value.map(JSONWriter.stringLength) ?? JSONWriter.numberLength }
    func isAbsent(_ value: String?) -> Bool { value == nil }
}

/// One of an enum's wire names; `what` names it in errors ("touch phase").
struct NameCodec<Name: QuotedWireName>: FieldCodec {
    let what: StaticString
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .string }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Name {
        try reader.name(Name.self, field: field, what: what.description)
    }
    @inline(__always)
    func write(_ value: Name, to writer: inout JSONWriter) { writer.name(value.quotedName) }
    func maximumLength(_ value: Name) -> Int { value.quotedName.utf8CodeUnitCount + 1 }
}

/// An enum whose raw values are its wire names, with each name quoted as a constant (what
/// the encoder copies).
protocol QuotedWireName: RawRepresentable, CaseIterable where RawValue == String {
    var quotedName: StaticString { get }
}

// MARK: Compounds

/// `null` or what `Wrapped` reads; left out of an `.optional` field when nil.
struct NullableCodec<Wrapped: FieldCodec>: FieldCodec {
    let wrapped: Wrapped
    init(_ wrapped: Wrapped) { self.wrapped = wrapped }
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .null || wrapped.accepts(kind) }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Wrapped.Value? {
        try reader.null() ? nil : try wrapped.read(&reader, field: field)
    }
    @inline(__always)
    func write(_ value: Wrapped.Value?, to writer: inout JSONWriter) {
        if let value { wrapped.write(value, to: &writer) } else { writer.null() }
    }
    func maximumLength(_ value: Wrapped.Value?) -> Int { value.map(wrapped.maximumLength) ?? JSONWriter.numberLength }
    func isAbsent(_ value: Wrapped.Value?) -> Bool { value == nil }
}

/// A nested object with fields of its own (paths `field.key`); `expected` says what a
/// value of another type must be instead.
struct ObjectCodec<Object: WireObject>: FieldCodec {
    let expected: StaticString
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .object }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Object {
        guard reader.peek() == .object else { throw reader.wrongType(field, expected.description) }
        return try reader.object(Object(wireDefaults: ()), path: field)
    }
    @inline(__always)
    func write(_ value: Object, to writer: inout JSONWriter) {
        var value = value
        writer.beginObject()
        _ = FieldWriter.write(&value, to: &writer)
        writer.endObject()
    }
    func maximumLength(_ value: Object) -> Int {
        var value = value
        return FieldMeasure.maximumLength(&value) + 3
    }
}

/// An array of what `element` reads; an element `element` does not accept, or a value that
/// is not an array, is "`field` must be `expected`". `null` is an empty array when
/// `nullIsEmpty`, else refused.
struct ArrayCodec<Element: FieldCodec>: FieldCodec {
    let element: Element
    let expected: StaticString
    var nullIsEmpty = false

    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .array || (nullIsEmpty && kind == .null) }

    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> [Element.Value] {
        if nullIsEmpty, try reader.null() { return [] }
        guard reader.peek() == .array else { throw reader.wrongType(field, expected.description) }
        var result: [Element.Value] = []
        var elements = try reader.beginArray()
        while try reader.nextElement(&elements) {
            guard element.accepts(reader.peek()) else { throw reader.wrongType(field, expected.description) }
            result.append(try element.read(&reader, field: field))
        }
        return result
    }

    func write(_ value: [Element.Value], to writer: inout JSONWriter) {
        writer.beginArray()
        for item in value { element.write(item, to: &writer) }
        writer.endArray()
    }

    func maximumLength(_ value: [Element.Value]) -> Int { value.reduce(3) { $0 + element.maximumLength($1) } }
    func isAbsent(_ value: [Element.Value]) -> Bool { value.isEmpty }
}

/// A point `{"x":…,"y":…}` with `digits` fraction digits.
struct PointCodec: FieldCodec {
    let digits: Int
    /// What a value of another type must be instead.
    static let expected: StaticString = "an object {\"x\":…,\"y\":…}"
    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .object }
    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> Point {
        try ObjectCodec<PointFields>(expected: Self.expected).read(&reader, field: field).point
    }
    @inline(__always)
    func write(_ value: Point, to writer: inout JSONWriter) {
        ObjectCodec<PointFields>(expected: "").write(PointFields(point: value, digits: digits), to: &writer)
    }
    func maximumLength(_ value: Point) -> Int { 2 * (JSONWriter.keyLength("x") + JSONWriter.numberLength) + 3 }
}

/// A point's fields, with the precision it is written with.
struct PointFields: WireObject {
    var point: Point
    var digits: Int

    init(point: Point, digits: Int) {
        self.point = point
        self.digits = digits
    }

    init(wireDefaults: Void) { self.init(point: .zero, digits: 0) }

    @inline(__always)
    mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(ProtocolError) {
        try v.field("x", &point.x, NumberCodec(digits: digits), .required)
        try v.field("y", &point.y, NumberCodec(digits: digits), .required)
    }
}

// MARK: Encoding visitors

/// Writes a value's fields in declaration order (the members of an object already begun).
struct FieldWriter: FieldVisitor {
    var writer: JSONWriter
    /// How `seq` is written, and where its digits went.
    var seqMode: WireEncoder.Seq = .number
    var seqOffset = 0

    @inline(__always)
    static func write<Object: WireFields>(_ value: inout Object, to writer: inout JSONWriter, seq: WireEncoder.Seq = .number)
        -> Int
    {
        var visitor = FieldWriter(writer: writer, seqMode: seq)
        try! value.visitFields(&visitor)  // the writer never throws
        writer = visitor.writer
        return visitor.seqOffset
    }

    @inline(__always)
    mutating func field<Codec: FieldCodec>(_ key: StaticString, _ value: inout Codec.Value, _ codec: Codec, _ presence: Presence) {
        guard presence.isWritten(value, codec) else { return }
        writer.key(key)
        codec.write(value, to: &writer)
    }

    @inline(__always)
    mutating func seq(_ value: inout UInt64) {
        writer.key("seq")
        switch seqMode {
        case .number:
            seqOffset = writer.count
            writer.unsigned(value)
        case .slot:
            seqOffset = writer.slot()
        }
    }
}

/// Adds up the most bytes each written field's key and value may take.
struct FieldMeasure: FieldVisitor {
    var length = 0

    @inline(__always)
    static func maximumLength<Object: WireFields>(_ value: inout Object) -> Int {
        var visitor = FieldMeasure()
        try! value.visitFields(&visitor)  // measuring never throws
        return visitor.length
    }

    @inline(__always)
    mutating func field<Codec: FieldCodec>(_ key: StaticString, _ value: inout Codec.Value, _ codec: Codec, _ presence: Presence) {
        guard presence.isWritten(value, codec) else { return }
        length += JSONWriter.keyLength(key) + codec.maximumLength(value)
    }
}

// MARK: Decoding visitors

/// Reads the one field whose key is `key` (the member just read), if the object has one.
struct FieldReader: FieldVisitor {
    var reader: JSONReader
    let key: JSONReader.Key
    /// The object's path (`""` at the top).
    let path: String
    /// The declaration index of the field read, if one was.
    var matched: Int? = nil
    /// The declaration index of the next field.
    var index = 0

    mutating func field<Codec: FieldCodec>(_ name: StaticString, _ value: inout Codec.Value, _ codec: Codec, _ presence: Presence)
        throws(ProtocolError)
    {
        defer { index += 1 }
        guard matched == nil, name ~= key else { return }
        matched = index
        value = try codec.read(&reader, field: fieldPath(path, name))
    }
}

/// Throws `missingField` for the first required field (in declaration order) that was not
/// read.
struct RequiredFields: FieldVisitor {
    let reader: JSONReader
    /// Bit `i`: the field declared `i`-th was read.
    let read: UInt64
    let path: String
    /// The offset of the object's `{`.
    let start: Int
    /// The declaration index of the next field.
    var index = 0

    mutating func field<Codec: FieldCodec>(_ name: StaticString, _ value: inout Codec.Value, _ codec: Codec, _ presence: Presence)
        throws(ProtocolError)
    {
        defer { index += 1 }
        guard presence.isRequired, read & (1 << index) == 0 else { return }
        throw reader.error(.missingField, field: fieldPath(path, name), at: start)
    }
}

/// `path.name`, or `name` at the top.
func fieldPath(_ path: String, _ name: StaticString) -> String {
    path.isEmpty ? name.description : path + "." + name.description
}

extension JSONReader {
    /// Reads an object's members into `value`: a member whose key it declares is read into
    /// its field; any other is skipped (messages: later versions add fields) or refused
    /// (requests, but for `type`: a misspelt option is an error); then every required
    /// field must have been read.
    mutating func object<T: WireFields>(_ value: T, path: String) throws(ProtocolError) -> T {
        var value = value
        var read: UInt64 = 0
        var members = try beginObject()
        while let key = try nextKey(&members) {
            var visitor = FieldReader(reader: self, key: key, path: path)
            try value.visitFields(&visitor)
            self = visitor.reader
            if let index = visitor.matched {
                read |= 1 << index
            } else if isRequest, !("type" ~= key) {
                throw error(.unknownField, field: key.text, at: key.offset)
            } else {
                try skip()
            }
        }
        var required = RequiredFields(reader: self, read: read, path: path, start: members.start)
        try value.visitFields(&required)
        return value
    }
}
