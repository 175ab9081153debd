/// Byte-level scanning of recording text: the corpus is tens of megabytes of short lines,
/// so the readers work on UTF-8 bytes and only build `String`s for names and messages.

/// One line of the input: its 1-based number and its bytes (without the line terminator).
struct TextLine {
    let number: Int
    let start: Int
    let end: Int
}

/// Splits a byte buffer into lines on `\n`, dropping a trailing `\r`.
struct LineSplitter: Sequence, IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var number = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> TextLine? {
        guard position < bytes.count else { return nil }
        let start = position
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        position = end + 1
        number += 1
        var contentEnd = end
        if contentEnd > start, bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
        return TextLine(number: number, start: start, end: contentEnd)
    }
}

/// A read position inside one line, with the small parsers every format needs.
/// Parsers return `nil` (and leave the position unspecified) when the text does not match.
struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ line: TextLine) {
        self.bytes = bytes
        self.position = line.start
        self.end = line.end
    }

    var atEnd: Bool { position >= end }

    var peek: UInt8? { position < end ? bytes[position] : nil }

    /// The unread rest of the line, for messages.
    var rest: String { string(position..<end) }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    mutating func skipSpaces() {
        while position < end, Cursor.isSpace(bytes[position]) { position += 1 }
    }

    /// Whether only spaces (or nothing) remain.
    var restIsBlank: Bool {
        var probe = self
        probe.skipSpaces()
        return probe.atEnd
    }

    /// Consumes `literal` if the line continues with it.
    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - position >= count else { return false }
        let matches = literal.withUTF8Buffer { expected in
            for index in 0..<count where bytes[position + index] != expected[index] { return false }
            return true
        }
        if matches { position += count }
        return matches
    }

    /// Whether the line continues with `literal`, without consuming it.
    func startsWith(_ literal: StaticString) -> Bool {
        var probe = self
        return probe.skip(literal)
    }

    /// Consumes a run of non-space bytes.
    mutating func token() -> Range<Int>? {
        skipSpaces()
        let start = position
        while position < end, !Cursor.isSpace(bytes[position]) { position += 1 }
        return start < position ? start..<position : nil
    }

    /// Consumes bytes up to (not including) `stop` or the end of the line.
    mutating func until(_ stop: UInt8) -> Range<Int> {
        let start = position
        while position < end, bytes[position] != stop { position += 1 }
        return start..<position
    }

    /// A signed decimal integer (leading zeros allowed, e.g. evemu's `-001`).
    mutating func decimal() -> Int64? {
        skipSpaces()
        var negative = false
        if position < end, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            negative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        let start = position
        var value: Int64 = 0
        while position < end, let digit = Cursor.decimalDigit(bytes[position]) {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit))
            if overflow1 || overflow2 { return nil }
            value = sum
            position += 1
        }
        guard position > start else { return nil }
        return negative ? -value : value
    }

    /// A decimal integer that fits `Int32`.
    mutating func int32() -> Int32? {
        guard let value = decimal() else { return nil }
        return Int32(exactly: value)
    }

    /// An unsigned hexadecimal integer, with or without `0x`.
    mutating func hex(maxDigits: Int = 16) -> UInt64? {
        skipSpaces()
        if end - position >= 3, bytes[position] == UInt8(ascii: "0"),
            bytes[position + 1] == UInt8(ascii: "x") || bytes[position + 1] == UInt8(ascii: "X"),
            Cursor.hexDigit(bytes[position + 2]) != nil
        {
            position += 2
        }
        let start = position
        var value: UInt64 = 0
        while position < end, let digit = Cursor.hexDigit(bytes[position]) {
            guard position - start < maxDigits else { return nil }
            value = value << 4 | UInt64(digit)
            position += 1
        }
        return position > start ? value : nil
    }

    /// `seconds.fraction` as microseconds (the fraction is read as a decimal fraction, so
    /// both `.5` and `.500000` mean half a second; digits beyond microseconds are dropped).
    mutating func timestamp() -> UInt64? {
        skipSpaces()
        let start = position
        var seconds: UInt64 = 0
        while position < end, let digit = Cursor.decimalDigit(bytes[position]) {
            let (shifted, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return nil }
            seconds = sum
            position += 1
        }
        guard position > start else { return nil }
        var micros: UInt64 = 0
        if position < end, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var scale: UInt64 = 100_000
            let fractionStart = position
            while position < end, let digit = Cursor.decimalDigit(bytes[position]) {
                micros += UInt64(digit) * scale
                scale /= 10
                position += 1
            }
            guard position > fractionStart else { return nil }
        }
        let (scaled, overflow1) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let (total, overflow2) = scaled.addingReportingOverflow(micros)
        return overflow1 || overflow2 ? nil : total
    }

    /// Skips a parenthesised group such as `(EV_ABS)` or `((null))`, nesting included.
    mutating func skipParenthesised() -> Bool {
        skipSpaces()
        guard position < end, bytes[position] == UInt8(ascii: "(") else { return false }
        var depth = 0
        while position < end {
            if bytes[position] == UInt8(ascii: "(") { depth += 1 }
            if bytes[position] == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 {
                    position += 1
                    return true
                }
            }
            position += 1
        }
        return false
    }

    static func decimalDigit(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Shortens a line for an error message.
func quoted(_ text: String, limit: Int = 60) -> String {
    let trimmed = text.count > limit ? String(text.prefix(limit)) + "…" : text
    return "'\(trimmed)'"
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
