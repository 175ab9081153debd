/// Writes JSON straight into memory reserved at the end of a byte array: what `WireEncoder`
/// writes with.
///
/// A line is written in one go: its caller reserves an upper bound of its length
/// (`FieldMeasure` computes it from the same field declarations the writer follows), and
/// every key, number and string is then stored through a pointer, with no capacity or
/// uniqueness check per byte (the bound is asserted in debug builds). Appending to an array
/// that has room allocates nothing.
///
/// Numbers are written in fixed point with at most `digits` fraction digits, trailing zeros
/// trimmed, so output is short, deterministic and locale-free. Non-finite doubles (which the
/// engine never produces) are written as 0 so a line is always valid JSON.
struct JSONWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    private var needsComma = false

    /// A writer of at most `buffer.count` bytes into `buffer`.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        start = buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!
        capacity = buffer.count
    }

    /// Lets `body` write at most `bound` bytes onto the end of `bytes`; returns what `body`
    /// returns.
    ///
    /// Swift 6.3's standard library appends into uninitialized capacity (`OutputSpan`); an
    /// older compiler (Debian's `swiftlang` 6.2, which builds the arm64 package) appends
    /// `bound` zeros, writes over them and drops what was not written: the same bytes, one
    /// pass of zeroing more.
    static func append<Result>(to bytes: inout [UInt8], bound: Int, _ body: (inout JSONWriter) -> Result) -> Result {
        #if compiler(>=6.3)
            var result: Result?
            bytes.append(addingCapacity: bound) { span in
                span.withUnsafeMutableBufferPointer { buffer, initialized in
                    var writer = JSONWriter(buffer)
                    result = body(&writer)
                    initialized = writer.count
                }
            }
            return result!
        #else
            let end = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: bound))
            let (result, written) = bytes.withUnsafeMutableBufferPointer { all in
                var writer = JSONWriter(UnsafeMutableBufferPointer(rebasing: all[end...]))
                return (body(&writer), writer.count)
            }
            bytes.removeLast(bound - written)
            return result
        #endif
    }

    // MARK: Structure

    /// Starts a new object (`{`), after a comma when it is an array element.
    mutating func beginObject() {
        separateElement()
        put(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Ends the current object (`}`).
    @inline(__always)
    mutating func endObject() {
        put(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array (`[`), after a comma when it is an array element.
    mutating func beginArray() {
        separateElement()
        put(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array (`]`).
    mutating func endArray() {
        put(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Ends the line: the wire's record separator.
    @inline(__always)
    mutating func endLine() {
        put(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Writes `"name":` (with a separating comma when needed). Inlined: at each call the
    /// name's length is a constant, and its copy a few moves.
    @inline(__always)
    mutating func key(_ name: StaticString) {
        separateElement()
        let length = name.utf8CodeUnitCount
        assert(count + length + 3 <= capacity, "line longer than its bound")
        let out = start + count
        out[0] = UInt8(ascii: "\"")
        Self.copy(name, to: out + 1)
        out[length &+ 1] = UInt8(ascii: "\"")
        out[length &+ 2] = UInt8(ascii: ":")
        count &+= length &+ 3
        needsComma = false
    }

    /// Writes `"name":` for a name known only at run time (escaped as a string value is).
    /// Named apart from `key(_:)`: a string literal would otherwise pick this overload
    /// (`String` is the default literal type) and escape a constant key byte by byte.
    mutating func key(runTime name: String) {
        string(name)
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Leaves room for a value written later (an event's `seq`) and returns its offset:
    /// the next key is separated as if a value had been written.
    mutating func slot() -> Int {
        separateElement()
        needsComma = true
        return count
    }

    /// The most bytes `key(_:)` writes for `name`.
    static func keyLength(_ name: StaticString) -> Int { name.utf8CodeUnitCount + 4 }

    /// The most bytes `string(_:)` (or `key(_:)` with a run-time name) writes for `value`:
    /// every byte escaped as `\u00XX`, the quotes, a comma and a colon.
    static func stringLength(_ value: String) -> Int { value.utf8.count * 6 + 4 }

    /// The most bytes a number, an integer or a literal writes (with its comma).
    static let numberLength = 32

    // MARK: Values

    /// Writes a value that is known to need no escaping, such as an enum's wire name.
    @inline(__always)
    mutating func raw(_ value: StaticString) {
        separateElement()
        put(value)
        needsComma = true
    }

    /// Writes a value that needs no escaping and whose length is known only at run time (an
    /// enum's quoted wire name, `QuotedWireName`): 4 to 16 bytes are two overlapping words,
    /// not a loop over the bytes.
    @inline(__always)
    mutating func name(_ value: StaticString) {
        separateElement()
        let length = value.utf8CodeUnitCount
        assert(count + length <= capacity, "line longer than its bound")
        let from = UnsafeRawPointer(value.utf8Start)
        let to = UnsafeMutableRawPointer(start + count)
        if length >= 8 && length <= 16 {
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self), toByteOffset: length &- 8, as: UInt64.self)
        } else if length >= 4 && length < 8 {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: length &- 4, as: UInt32.self), toByteOffset: length &- 4, as: UInt32.self)
        } else {
            Self.copy(value, to: start + count)
        }
        count &+= length
        needsComma = true
    }

    /// Inlined, and the copy out of line writes through a pointer (`copyEscaping(_:to:)`):
    /// no call is given the writer's address, so the optimiser keeps `count` and
    /// `needsComma` in registers across a whole line.
    @inline(__always)
    mutating func string(_ value: String) {
        separateElement()
        assert(count + value.utf8.count * 6 + 2 <= capacity, "line longer than its bound")
        put(UInt8(ascii: "\""))
        let out = start + count
        if let written = value.utf8.withContiguousStorageIfAvailable({ Self.copyEscaping($0, to: out) }) {
            count &+= written
        } else {
            count &+= Array(value.utf8).withUnsafeBufferPointer { Self.copyEscaping($0, to: out) }
        }
        put(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Copies `utf8` escaped to `out` and returns the bytes written (at most six per byte). One
    /// pass: bytes that need no escaping (nearly all) are stored as they are, eight at a
    /// time while none of the eight needs it; the last few (fewer than eight) as one more
    /// word, the string's last eight bytes, stored over the copy of the word before when
    /// that was stored as it is.
    private static func copyEscaping(_ utf8: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard let source = utf8.baseAddress else { return 0 }
        let length = utf8.count
        var index = 0
        var written = 0
        var lastStoredWhole = false
        while length &- index >= 8 {
            let word = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
            if needsEscaping(word) {
                written &+= copyEscapingBytes(UnsafeBufferPointer(start: source + index, count: 8), to: out + written)
                lastStoredWhole = false
            } else {
                UnsafeMutableRawPointer(out + written).storeBytes(of: word, as: UInt64.self)
                written &+= 8
                lastStoredWhole = true
            }
            index &+= 8
        }
        let rest = length &- index
        guard rest > 0 else { return written }
        if lastStoredWhole {
            // The output's last eight bytes are the source's `index - 8 ..< index`: the word
            // of `length - 8 ..< length` rewrites `8 - rest` of them with the same bytes.
            let word = UnsafeRawPointer(source + (length &- 8)).loadUnaligned(as: UInt64.self)
            if !needsEscaping(word) {
                UnsafeMutableRawPointer(out + (written &+ rest &- 8)).storeBytes(of: word, as: UInt64.self)
                return written &+ rest
            }
        }
        return written &+ copyEscapingBytes(UnsafeBufferPointer(rebasing: utf8[index...]), to: out + written)
    }

    /// Whether any of the eight bytes of `word` is below 0x20, a quote or a backslash (the
    /// bit tricks of "Bit Twiddling Hacks": a byte below n, a zero byte after an xor).
    private static func needsEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value }
        // One test of the three masks together (no branch per condition).
        let below = (word &- ones &* 0x20) & ~word
        let quote = zeroBytes(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
        let backslash = zeroBytes(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
        return (below | quote | backslash) & highs != 0
    }

    /// Copies `utf8` to `out` byte by byte, escaping where needed; returns the bytes written.
    private static func copyEscapingBytes(_ utf8: UnsafeBufferPointer<UInt8>, to start: UnsafeMutablePointer<UInt8>) -> Int {
        var out = start
        for byte in utf8 {
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                out.pointee = byte
                out += 1
            } else {
                out += escape(byte, to: out)
            }
        }
        return out - start
    }

    @inline(__always)
    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    @inline(__always)
    mutating func null() {
        raw("null")
    }

    @inline(__always)
    mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    @inline(__always)
    mutating func integer(_ value: Int) {
        separateElement()
        if value < 0 { put(UInt8(ascii: "-")) }
        putDigits(UInt64(value.magnitude))
        needsComma = true
    }

    @inline(__always)
    mutating func unsigned(_ value: UInt64) {
        separateElement()
        putDigits(value)
        needsComma = true
    }

    /// Writes `value` rounded to `digits` (0…9) fraction digits, trailing zeros trimmed.
    /// Inlined: `digits` is a constant at every call, and so are the powers of ten.
    @inline(__always)
    mutating func number(_ value: Double, digits: Int) {
        separateElement()
        needsComma = true
        let fractionDigits = min(max(digits, 0), 9)
        let unit = Self.powerOfTen(fractionDigits)
        let scaled = value.magnitude * Double(unit)
        // Not finite (NaN and infinity fail the comparison) or too large for the integer
        // arithmetic below: 0.
        guard scaled < 9.0e18 else {
            put(UInt8(ascii: "0"))
            return
        }
        let units = Self.roundedHalfAwayFromZero(scaled)
        if units == 0 {
            put(UInt8(ascii: "0"))
            return
        }
        if value < 0 { put(UInt8(ascii: "-")) }
        // Most numbers (normalised locations) are below 1: no division for their whole part.
        let whole = units < unit ? 0 : units / unit
        putDigits(whole)
        let fraction = units &- whole &* unit
        guard fraction != 0 else { return }
        // All `fractionDigits` digits, right to left, then the trailing zeros taken back
        // (the fraction is not 0: a digit other than 0 stops it before the point).
        assert(count + 1 + fractionDigits <= capacity, "line longer than its bound")
        put(UInt8(ascii: "."))
        putDigits(fraction, length: fractionDigits)
        while start[count &- 1] == UInt8(ascii: "0") { count &-= 1 }
    }

    /// `scaled.rounded()` (half away from zero) for 0 ≤ `scaled` < 9 × 10^18, without the
    /// call to libm's `round` and, below 2^51 (every number the engine writes), without the
    /// range checks of a conversion to an integer: adding 2^52 leaves the nearest integer
    /// (ties to even) in the mantissa, exactly; a tie rounded down to even is taken up.
    /// Above, the integer part plus one when the rest is at least a half (the rest is exact:
    /// a double minus its integer part loses nothing; signed, one instruction each way).
    @inline(__always)
    static func roundedHalfAwayFromZero(_ scaled: Double) -> UInt64 {
        let twoToThe52 = 4_503_599_627_370_496.0
        if scaled < twoToThe52 / 2 {
            let shifted = scaled + twoToThe52
            var units = shifted.bitPattern & 0x000F_FFFF_FFFF_FFFF
            if scaled - (shifted - twoToThe52) == 0.5 { units &+= 1 }
            return units
        }
        let truncated = Int64(scaled)
        var units = UInt64(truncatingIfNeeded: truncated)
        if scaled - Double(truncated) >= 0.5 { units &+= 1 }
        return units
    }

    // MARK: Bytes

    /// A comma before a value that follows another in an array or object.
    @inline(__always)
    private mutating func separateElement() {
        if needsComma { put(UInt8(ascii: ",")) }
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        assert(count < capacity, "line longer than its bound")
        start[count] = byte
        count &+= 1
    }

    @inline(__always)
    private mutating func put(_ text: StaticString) {
        assert(count + text.utf8CodeUnitCount <= capacity, "line longer than its bound")
        Self.copy(text, to: start + count)
        count &+= text.utf8CodeUnitCount
    }

    /// Copies a short constant (a key, a wire name) byte by byte: cheaper than a call to
    /// `memcpy` for the few bytes these have.
    @inline(__always)
    private static func copy(_ text: StaticString, to out: UnsafeMutablePointer<UInt8>) {
        let bytes = text.utf8Start
        for index in 0..<text.utf8CodeUnitCount { out[index] = bytes[index] }
    }

    /// 10^`exponent`, for `exponent` in 0…19.
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> UInt64 {
        var power: UInt64 = 1
        for _ in 0..<exponent { power &*= 10 }
        return power
    }

    /// The decimal digits of `value` (one, inline, for the whole part of most numbers).
    @inline(__always)
    private mutating func putDigits(_ value: UInt64) {
        if value < 10 {
            put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
        } else {
            assert(count + 20 <= capacity, "line longer than its bound")
            count &+= Self.writeManyDigits(value, to: start + count)
        }
    }

    /// Writes the decimal digits of `value` ≥ 10 to `out` and returns how many. Out of line
    /// and through a pointer, not the writer's address (see `string(_:)`).
    private static func writeManyDigits(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let length = decimalLength(value)
        writeDigits(value, length: length, to: out)
        return length
    }

    /// How many decimal digits `value` ≥ 10 has: estimated from its bit length (log10(2) ≈
    /// 1233 / 4096, exact or one short for every bit length), then corrected by one
    /// comparison.
    @inline(__always)
    static func decimalLength(_ value: UInt64) -> Int {
        let bits = 64 &- value.leadingZeroBitCount
        let estimate = (bits &* 1233) >> 12
        return value >= tenToThe(estimate) ? estimate &+ 1 : estimate
    }

    /// 10^`exponent` for a run-time `exponent` in 0…19: a switch the compiler makes a table
    /// lookup (`powerOfTen` is for constant exponents).
    @inline(__always)
    private static func tenToThe(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }

    /// Exactly `length` decimal digits of `value` (zero-padded on the left).
    @inline(__always)
    private mutating func putDigits(_ value: UInt64, length: Int) {
        assert(count + length <= capacity, "line longer than its bound")
        Self.writeDigits(value, length: length, to: start + count)
        count &+= length
    }

    /// Writes exactly `length` decimal digits of `value` (zero-padded on the left) to `start`,
    /// right to left, four at a time (one 64-bit division, then the two pairs of the four in
    /// 32 bits), each pair one 16-bit copy from `digitPairs`. Inlined: a number's fraction
    /// has a constant length.
    @inline(__always)
    private static func writeDigits(_ value: UInt64, length: Int, to start: UnsafeMutablePointer<UInt8>) {
        var rest = value
        var out = start + length
        var remaining = length
        while remaining >= 4 {
            let next = rest / 10_000
            let four = UInt32(truncatingIfNeeded: rest &- next &* 10_000)
            rest = next
            let high = four / 100
            out -= 4
            putPair(high, at: out)
            putPair(four &- high &* 100, at: out + 2)
            remaining &-= 4
        }
        if remaining >= 2 {
            let next = rest / 100
            let pair = UInt32(truncatingIfNeeded: rest &- next &* 100)
            rest = next
            out -= 2
            putPair(pair, at: out)
            remaining &-= 2
        }
        if remaining == 1 {
            out -= 1
            out[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
    }

    /// The two digits of `pair` (0…99) at `out`.
    @inline(__always)
    private static func putPair(_ pair: UInt32, at out: UnsafeMutablePointer<UInt8>) {
        let digits = UnsafeRawPointer(digitPairs.utf8Start + Int(truncatingIfNeeded: pair &* 2)).loadUnaligned(as: UInt16.self)
        UnsafeMutableRawPointer(out).storeBytes(of: digits, as: UInt16.self)
    }

    /// "00", "01" … "99".
    private static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    private static var hexDigits: StaticString { "0123456789abcdef" }

    /// Writes `byte` escaped to `out`; returns the bytes written.
    private static func escape(_ byte: UInt8, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let escaped: StaticString
        switch byte {
        case UInt8(ascii: "\""): escaped = "\\\""
        case UInt8(ascii: "\\"): escaped = "\\\\"
        case UInt8(ascii: "\n"): escaped = "\\n"
        case UInt8(ascii: "\r"): escaped = "\\r"
        case UInt8(ascii: "\t"): escaped = "\\t"
        case 0..<0x20:
            copy("\\u00", to: out)
            out[4] = hexDigits.utf8Start[Int(byte >> 4)]
            out[5] = hexDigits.utf8Start[Int(byte & 0xf)]
            return 6
        default:
            out[0] = byte
            return 1
        }
        copy(escaped, to: out)
        return escaped.utf8CodeUnitCount
    }
}
