/// Appends JSON to a reusable byte buffer without Foundation and without allocating (beyond
/// the buffer's own growth): what `WireEncoder` writes with.
///
/// Numbers are written in fixed point with at most `digits` fraction digits, trailing zeros
/// trimmed, so output is short, deterministic and locale-free. Non-finite doubles (which the
/// engine never produces) are written as 0 so a line is always valid JSON.
struct JSONWriter {
    /// The encoded bytes; callers may take them and `removeAll(keepingCapacity: true)`.
    var bytes: [UInt8]
    private var needsComma = false

    init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Starts a new object (`{`), after a comma when it is an array element.
    mutating func beginObject() {
        separateElement()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Starts an array (`[`), after a comma when it is an array element.
    mutating func beginArray() {
        separateElement()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array (`]`).
    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Lets `body` write onto the end of `bytes` (no copy: the buffer is moved in and out).
    static func append(to bytes: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &bytes)
        body(&writer)
        swap(&writer.bytes, &bytes)
    }

    /// Ends the current object (`}`).
    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Ends the line: the wire's record separator.
    mutating func endLine() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Writes `"name":` (with a separating comma when needed).
    mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes `"name":` for a name known only at run time (escaped as a string value is).
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Leaves room for a value written later (an event's `seq`) and returns its offset in
    /// `bytes`: the next key is separated as if a value had been written.
    mutating func slot() -> Int {
        separateElement()
        needsComma = true
        return bytes.count
    }

    /// Writes a value that is known to need no escaping, such as an enum's wire name.
    mutating func raw(_ value: StaticString) {
        separateElement()
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    mutating func string(_ value: String) {
        separateElement()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Names rarely need escaping: copy them whole unless a byte does.
            if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 { appendEscaped(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    mutating func null() {
        separateElement()
        appendASCII("null")
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separateElement()
        appendASCII(value ? "true" : "false")
        needsComma = true
    }

    mutating func integer(_ value: Int) {
        separateElement()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDigits(UInt64(value.magnitude))
        } else {
            appendDigits(UInt64(value))
        }
        needsComma = true
    }

    mutating func unsigned(_ value: UInt64) {
        separateElement()
        appendDigits(value)
        needsComma = true
    }

    /// Writes `value` rounded to `digits` (0…9) fraction digits, trailing zeros trimmed.
    mutating func number(_ value: Double, digits: Int) {
        separateElement()
        let scale = Self.powersOfTen[min(max(digits, 0), 9)]
        guard value.isFinite, value.magnitude * Double(scale) < 9.0e18 else {
            bytes.append(UInt8(ascii: "0"))
            needsComma = true
            return
        }
        let scaled = (value.magnitude * Double(scale)).rounded()
        var units = UInt64(scaled)
        if units == 0 {
            bytes.append(UInt8(ascii: "0"))
            needsComma = true
            return
        }
        var fractionDigits = min(max(digits, 0), 9)
        while fractionDigits > 0, units % 10 == 0 {
            units /= 10
            fractionDigits -= 1
        }
        // Digits are produced right to left into a stack buffer and appended in one go.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var start = buffer.count
            for _ in 0..<fractionDigits {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(units % 10)
                units /= 10
            }
            if fractionDigits > 0 {
                start -= 1
                buffer[start] = UInt8(ascii: ".")
            }
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(units % 10)
                units /= 10
            } while units > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
        needsComma = true
    }

    /// Writes `{"x":…,"y":…}`.
    mutating func point(_ point: Point, digits: Int) {
        beginObject()
        key("x")
        number(point.x, digits: digits)
        key("y")
        number(point.y, digits: digits)
        endObject()
    }

    /// A comma before a value that follows another in an array (after a key, none is due).
    private mutating func separateElement() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let powersOfTen: [UInt64] = [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    private mutating func appendDigits(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = value
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    private mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): appendASCII("\\\"")
        case UInt8(ascii: "\\"): appendASCII("\\\\")
        case UInt8(ascii: "\n"): appendASCII("\\n")
        case UInt8(ascii: "\r"): appendASCII("\\r")
        case UInt8(ascii: "\t"): appendASCII("\\t")
        case 0..<0x20:
            appendASCII("\\u00")
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xf)])
        default:
            bytes.append(byte)
        }
    }
}
