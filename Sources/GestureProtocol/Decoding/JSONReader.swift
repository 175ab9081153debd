/// A cursor over one line of JSON (RFC 8259, UTF-8), for `WireDecoder`.
///
/// A line is read in two passes. `validate()` checks the whole line (syntax, UTF-8, no raw
/// control characters in strings, nesting at most `WireDecoder.maximumDepth`) and finds its
/// top-level `type`; only then are the fields read, by key, into typed values, so that a
/// line that is not JSON is always reported as such, and a field error always concerns a
/// line that is. Reads straight from the bytes: no intermediate tree, no allocation but the
/// strings it returns (and those only past the 15 bytes Swift stores inline).
struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0
    /// For errors: which direction the line goes, and its type once known.
    let isRequest: Bool
    var type: String?

    init(_ bytes: UnsafeBufferPointer<UInt8>, isRequest: Bool) {
        self.bytes = bytes
        self.isRequest = isRequest
    }

    /// An error at `offset` (the current position by default).
    func error(_ problem: ProtocolError.Problem, field: String? = nil, at offset: Int? = nil) -> ProtocolError {
        ProtocolError(problem, field: field, type: type, isRequest: isRequest, offset: offset ?? index)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    // MARK: Pass 1: the whole line

    /// Checks that the line is one JSON object and returns its top-level `type` (the last
    /// one, if repeated) with the offset of its value; nil when it has none or it is not a
    /// string. Leaves the reader at the start.
    mutating func validate() throws(ProtocolError) -> (type: String, offset: Int)? {
        defer { index = 0 }
        guard Self.isValidUTF8(bytes) else { throw error(.malformedJSON, at: Self.firstInvalidUTF8(bytes)) }
        skipWhitespace()
        let start = index
        guard current == UInt8(ascii: "{") else {
            try skipValue(depth: 0)
            try expectEnd()
            throw error(.notAnObject, at: start)
        }
        var found: (type: String, offset: Int)?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            skipWhitespace()
            if "type" ~= key, current == UInt8(ascii: "\"") {
                let offset = index
                found = (try string(field: "type"), offset)
            } else {
                try skipValue(depth: 1)
            }
        }
        try expectEnd()
        return found
    }

    private mutating func expectEnd() throws(ProtocolError) {
        skipWhitespace()
        guard index == bytes.count else { throw error(.malformedJSON) }
    }

    /// Skips one value, checking its syntax.
    private mutating func skipValue(depth: Int) throws(ProtocolError) {
        skipWhitespace()
        guard let byte = current else { throw error(.malformedJSON) }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < WireDecoder.maximumDepth else { throw error(.malformedJSON) }
            var members = try beginObject()
            while try nextKey(&members) != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            guard depth < WireDecoder.maximumDepth else { throw error(.malformedJSON) }
            var elements = try beginArray()
            while try nextElement(&elements) { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""):
            _ = try stringBounds()
        case UInt8(ascii: "t"):
            try literal("true")
        case UInt8(ascii: "f"):
            try literal("false")
        case UInt8(ascii: "n"):
            try literal("null")
        default:
            _ = try numberToken()
        }
    }

    private mutating func literal(_ text: StaticString) throws(ProtocolError) {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error(.malformedJSON) }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
            throw error(.malformedJSON, at: index + offset)
        }
        index += count
    }

    private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        return firstInvalidUTF8(bytes) == bytes.count
    }

    /// The offset of the first byte that is not valid UTF-8 (`bytes.count` when all are).
    private static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return bytes.count
            case .error: return offset
            }
        }
    }

    // MARK: Objects and arrays

    /// Where an object's members are read from.
    struct Members {
        var first = true
        /// The offset of the object's `{`.
        let start: Int
    }

    /// A member's name: its bytes in the line (between the quotes), decoded only when it
    /// contains escapes.
    struct Key {
        let raw: UnsafeBufferPointer<UInt8>
        let unescaped: [UInt8]?
        /// The offset of its opening quote.
        let offset: Int

        /// The name as text (for error messages).
        var text: String {
            if let unescaped { return String(decoding: unescaped, as: UTF8.self) }
            return String(decoding: raw, as: UTF8.self)
        }

        static func ~= (name: StaticString, key: Key) -> Bool {
            let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            if let unescaped = key.unescaped { return unescaped.elementsEqual(expected) }
            return key.raw.elementsEqual(expected)
        }
    }

    /// Reads the `{` of an object.
    mutating func beginObject() throws(ProtocolError) -> Members {
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { throw error(.malformedJSON) }
        let start = index
        index += 1
        return Members(start: start)
    }

    /// The next member's name (its value is next), or nil after the object's `}`.
    mutating func nextKey(_ members: inout Members) throws(ProtocolError) -> Key? {
        skipWhitespace()
        if members.first {
            members.first = false
            if current == UInt8(ascii: "}") {
                index += 1
                return nil
            }
        } else {
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return nil
            default:
                throw error(.malformedJSON)
            }
        }
        guard current == UInt8(ascii: "\"") else { throw error(.malformedJSON) }
        let offset = index
        let bounds = try stringBounds()
        let raw = UnsafeBufferPointer(rebasing: bytes[bounds.range])
        let key = Key(raw: raw, unescaped: bounds.escaped ? unescape(raw) : nil, offset: offset)
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw error(.malformedJSON) }
        index += 1
        return key
    }

    /// Where an array's elements are read from.
    struct Elements {
        var first = true
    }

    /// Reads the `[` of an array.
    mutating func beginArray() throws(ProtocolError) -> Elements {
        skipWhitespace()
        guard current == UInt8(ascii: "[") else { throw error(.malformedJSON) }
        index += 1
        return Elements()
    }

    /// Whether another element follows (positioned at it); false after the array's `]`.
    mutating func nextElement(_ elements: inout Elements) throws(ProtocolError) -> Bool {
        skipWhitespace()
        if elements.first {
            elements.first = false
            if current == UInt8(ascii: "]") {
                index += 1
                return false
            }
            return true
        }
        switch current {
        case UInt8(ascii: ","):
            index += 1
            return true
        case UInt8(ascii: "]"):
            index += 1
            return false
        default:
            throw error(.malformedJSON)
        }
    }

    // MARK: Pass 2: typed values (the line is known to be valid JSON)

    /// What kind of value comes next.
    enum ValueKind {
        case object, array, string, number, bool, null
    }

    mutating func peek() -> ValueKind {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .number
        }
    }

    /// Skips the value of a member that is not read.
    mutating func skip() throws(ProtocolError) {
        try skipValue(depth: 1)
    }

    /// Consumes `null` if it comes next.
    mutating func null() throws(ProtocolError) -> Bool {
        guard peek() == .null else { return false }
        try literal("null")
        return true
    }

    /// Throws `wrongType` for the value that comes next (after checking it is one).
    func wrongType(_ field: String, _ expected: String) -> ProtocolError {
        error(.wrongType(expected: expected), field: field)
    }

    mutating func bool(field: String) throws(ProtocolError) -> Bool {
        guard peek() == .bool else { throw wrongType(field, "true or false") }
        if current == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    mutating func string(field: String) throws(ProtocolError) -> String {
        guard peek() == .string else { throw wrongType(field, "a string") }
        let bounds = try stringBounds()
        let raw = UnsafeBufferPointer(rebasing: bytes[bounds.range])
        // Validated as UTF-8 in pass 1.
        return bounds.escaped ? String(decoding: unescape(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
    }

    mutating func optionalString(field: String) throws(ProtocolError) -> String? {
        if try null() { return nil }
        guard peek() == .string else { throw wrongType(field, "a string or null") }
        return try string(field: field)
    }

    /// One of the names of `E` (its raw values); `what` names it in the error.
    mutating func name<E: RawRepresentable & CaseIterable>(_: E.Type, field: String, what: String) throws(ProtocolError) -> E
    where E.RawValue == String {
        let offset = index
        let text = try string(field: field)
        guard let value = E(rawValue: text) else {
            throw error(.unknownName(text, what: what, known: E.allCases.map(\.rawValue)), field: field, at: offset)
        }
        return value
    }

    mutating func unsigned(field: String) throws(ProtocolError) -> UInt64 {
        guard peek() == .number else { throw wrongType(field, "an unsigned integer") }
        let start = index
        let token = try numberToken()
        guard !token.fraction, !token.exponent, bytes[start] != UInt8(ascii: "-") else {
            throw wrongType(field, "an unsigned integer", at: start)
        }
        var value: UInt64 = 0
        for byte in bytes[start..<index] {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw wrongType(field, "an unsigned integer below 2^64", at: start) }
            value = sum
        }
        return value
    }

    mutating func integer(field: String) throws(ProtocolError) -> Int {
        guard peek() == .number else { throw wrongType(field, "an integer") }
        let start = index
        let token = try numberToken()
        guard !token.fraction, !token.exponent, let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw wrongType(field, "an integer", at: start)
        }
        return value
    }

    mutating func double(field: String) throws(ProtocolError) -> Double {
        guard peek() == .number else { throw wrongType(field, "a number") }
        let start = index
        let token = try numberToken()
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if !token.exponent, let value = Self.fastDouble(text) { return value }
        // Finite by the grammar, but 1e999 is not a Double.
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw wrongType(field, "a finite number", at: start)
        }
        return value
    }

    private func wrongType(_ field: String, _ expected: String, at offset: Int) -> ProtocolError {
        error(.wrongType(expected: expected), field: field, at: offset)
    }

    /// `-?digits(.digits)?` with at most 15 significant digits, exactly: the integer of its
    /// digits is exact in a Double, and so is the power of ten it is divided by, so the one
    /// division rounds correctly (what `strtod` gives, without building a String).
    private static func fastDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var inFraction = false
        var negative = false
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): negative = true
            case UInt8(ascii: "."): inFraction = true
            default:
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                digits += 1
                if inFraction { fractionDigits += 1 }
            }
        }
        guard digits <= 15 else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    // MARK: Tokens

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func numberToken() throws(ProtocolError) -> (fraction: Bool, exponent: Bool) {
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw error(.malformedJSON)
        }
        var fraction = false
        var exponent = false
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error(.malformedJSON) }
            fraction = true
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error(.malformedJSON) }
            exponent = true
        }
        return (fraction, exponent)
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    /// The bytes between a string's quotes (from its opening quote), checking its escapes
    /// and that it holds no raw control character; `escaped`: it has a backslash.
    private mutating func stringBounds() throws(ProtocolError) -> (range: Range<Int>, escaped: Bool) {
        index += 1  // "
        let start = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return (start..<index - 1, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                index += 1
                guard let escape = current else { throw error(.malformedJSON) }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    try unicodeEscape()
                default:
                    throw error(.malformedJSON)
                }
            case 0x00..<0x20:
                throw error(.malformedJSON)
            default:
                index += 1
            }
        }
        throw error(.malformedJSON)
    }

    /// Checks a `\uXXXX` escape (after the `u`): a surrogate must be a high one followed by
    /// a low one.
    private mutating func unicodeEscape() throws(ProtocolError) {
        guard let first = hex4() else { throw error(.malformedJSON) }
        switch first {
        case 0xD800..<0xDC00:
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error(.malformedJSON)
            }
            index += 2
            guard let second = hex4(), (0xDC00..<0xE000).contains(second) else { throw error(.malformedJSON) }
        case 0xDC00..<0xE000:
            throw error(.malformedJSON)
        default:
            break
        }
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = HexDigit.value(bytes[index]) else { return nil }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// The UTF-8 of a string's contents with its escapes resolved (they were checked).
    private func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(at offset: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in 0..<4 { value = value << 4 | UInt32(HexDigit.value(raw[offset + k]) ?? 0) }
            return value
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(at: i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex4(at: i + 2) - 0xDC00)
                    i += 6
                }
                // Checked in pass 1: a scalar, or a surrogate pair joined above.
                if let scalar = Unicode.Scalar(scalar) {
                    UTF8.encode(scalar) { out.append($0) }
                }
            default: out.append(escape)  // " \ /
            }
        }
        return out
    }
}
