/// Appends one JSON object to a reusable byte buffer without Foundation and without
/// allocating (beyond the buffer's own growth): the event path's encoder.
///
/// Numbers are written in fixed point with at most `digits` fraction digits, trailing zeros
/// trimmed, so output is short, deterministic and locale-free. Non-finite doubles (which the
/// engine never produces) are written as 0 so a line is always valid JSON.
public struct JSONWriter {
    /// The encoded bytes; callers may take them and `removeAll(keepingCapacity: true)`.
    public var bytes: [UInt8]
    private var needsComma = false

    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Starts a new object (`{`), after a comma when it is an array element.
    public mutating func beginObject() {
        separateElement()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Starts an array (`[`), after a comma when it is an array element.
    public mutating func beginArray() {
        separateElement()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array (`]`).
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Lets `body` write onto the end of `bytes` (no copy: the buffer is moved in and out).
    public static func append(to bytes: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &bytes)
        body(&writer)
        swap(&writer.bytes, &bytes)
    }

    /// Ends the current object (`}`).
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Ends the line: the wire's record separator.
    public mutating func endLine() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Writes `"name":` (with a separating comma when needed).
    public mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a value that is known to need no escaping, such as an enum's wire name.
    public mutating func raw(_ value: StaticString) {
        separateElement()
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    public mutating func string(_ value: String) {
        separateElement()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            for byte in utf8 { appendEscaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func null() {
        separateElement()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separateElement()
        if value {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
        }
        needsComma = true
    }

    public mutating func integer(_ value: Int) {
        separateElement()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDigits(UInt64(value.magnitude))
        } else {
            appendDigits(UInt64(value))
        }
        needsComma = true
    }

    public mutating func unsigned(_ value: UInt64) {
        separateElement()
        appendDigits(value)
        needsComma = true
    }

    /// Writes `value` rounded to `digits` (0…9) fraction digits, trailing zeros trimmed.
    public mutating func number(_ value: Double, digits: Int) {
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
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var fractionDigits = digits
        while fractionDigits > 0, units % 10 == 0 {
            units /= 10
            fractionDigits -= 1
        }
        let divisor = Self.powersOfTen[fractionDigits]
        appendDigits(units / divisor)
        if fractionDigits > 0 {
            bytes.append(UInt8(ascii: "."))
            var fraction = units % divisor
            var place = divisor / 10
            while place > 0 {
                bytes.append(UInt8(ascii: "0") &+ UInt8(fraction / place))
                fraction %= place
                place /= 10
            }
        }
        needsComma = true
    }

    /// Writes `{"x":…,"y":…}`.
    public mutating func point(_ point: Point, digits: Int) {
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
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xf)])
        default:
            bytes.append(byte)
        }
    }
}
