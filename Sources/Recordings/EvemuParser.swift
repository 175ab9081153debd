import GestureCore
import GestureProtocol

/// Reads evemu text (1.1–1.3): `N:` name, `I:` ids, `P:` property bitmask, `B:` code
/// bitmasks, `A:` axis info, `E:` events; `#` starts a comment. Bitmask lines of one type
/// continue each other (byte *i* of the concatenation holds codes 8·i … 8·i+7).
enum EvemuParser {
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ source: Source, fallbackName: String) throws(RecordingError) -> ParsedStream {
        var header = Header()
        var stream = ParsedStream()
        stream.events.reserveCapacity(bytes.count / 30)
        for line in LineSplitter(bytes) {
            var cursor = Cursor(bytes, line)
            cursor.skipSpaces()
            guard let first = cursor.peek, first != UInt8(ascii: "#") else { continue }
            if cursor.skip("E:") {
                let event = try parseEvent(&cursor, line, source)
                if stream.firstEventLine == nil { stream.firstEventLine = line.number }
                stream.events.append(event)
            } else if cursor.skip("N:") {
                cursor.skipSpaces()
                header.name = trimmed(cursor.rest)
                header.isPresent = true
            } else if cursor.skip("I:") {
                var ids: [UInt16] = []
                for _ in 0..<4 {
                    guard let value = cursor.hex(), let id = UInt16(exactly: value) else {
                        throw source.error(line.number, "I: needs four hexadecimal ids (bus vendor product version)")
                    }
                    ids.append(id)
                }
                header.ids = ids
                header.isPresent = true
            } else if cursor.skip("P:") {
                header.propertyBytes += try hexBytes(&cursor, line, source, what: "P:")
                guard header.propertyBytes.count <= Header.maximumBitmaskBytes else {
                    throw source.error(line.number, "P: property bitmask longer than \(Header.maximumBitmaskBytes) bytes")
                }
                header.isPresent = true
            } else if cursor.skip("B:") {
                guard let type = cursor.hex(), let eventType = UInt16(exactly: type) else {
                    throw source.error(line.number, "B: needs an event type in hexadecimal")
                }
                header.bitmasks[eventType, default: []] += try hexBytes(&cursor, line, source, what: "B:")
                guard header.bitmasks[eventType, default: []].count <= Header.maximumBitmaskBytes else {
                    throw source.error(line.number, "B: bitmask longer than \(Header.maximumBitmaskBytes) bytes")
                }
                header.isPresent = true
            } else if cursor.skip("A:") {
                let (code, info) = try parseAbsInfo(&cursor, line, source)
                header.absInfo[code] = info
                header.isPresent = true
            } else {
                throw source.error(line.number, "unrecognised evemu line \(quoted(cursor.rest)) (expected N:, I:, P:, B:, A: or E:)")
            }
        }
        if header.isPresent { stream.device = header.description(fallbackName: fallbackName) }
        return stream
    }

    /// `E: sec.usec type code value`, type and code in hexadecimal, value in decimal.
    private static func parseEvent(_ cursor: inout Cursor, _ line: TextLine, _ source: Source) throws(RecordingError) -> InputEvent {
        guard let time = cursor.timestamp() else {
            throw source.error(line.number, "E: needs a timestamp 'seconds.microseconds', got \(quoted(cursor.rest))")
        }
        guard let type = cursor.hex(maxDigits: 4), let code = cursor.hex(maxDigits: 4) else {
            throw source.error(line.number, "E: needs a hexadecimal type and code after the time, got \(quoted(cursor.rest))")
        }
        let beforeValue = cursor
        guard let value = cursor.int32() else {
            throw source.error(
                line.number, "E: needs a decimal 32-bit value after the code, got \(quoted(beforeValue.rest.trimmingSpaces))")
        }
        try expectEnd(&cursor, line, source)
        return InputEvent(time: Timestamp(microseconds: time), type: UInt16(type), code: UInt16(code), value: value)
    }

    /// `A: code min max fuzz flat [resolution]`, code in hexadecimal.
    private static func parseAbsInfo(_ cursor: inout Cursor, _ line: TextLine, _ source: Source) throws(RecordingError) -> (UInt16, AbsInfo)
    {
        guard let code = cursor.hex(maxDigits: 4) else {
            throw source.error(line.number, "A: needs an axis code in hexadecimal")
        }
        var numbers: [Int32] = []
        while numbers.count < 5, !cursor.restIsBlank, cursor.peekAfterSpaces != UInt8(ascii: "#") {
            guard let number = cursor.int32() else {
                throw source.error(line.number, "A: values must be decimal 32-bit integers, got \(quoted(cursor.rest))")
            }
            numbers.append(number)
        }
        guard numbers.count >= 4 else {
            throw source.error(line.number, "A: needs min max fuzz flat [resolution] after the code")
        }
        try expectEnd(&cursor, line, source)
        let info = AbsInfo(
            minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
            resolution: numbers.count > 4 ? numbers[4] : 0)
        return (UInt16(code), info)
    }

    private static func hexBytes(_ cursor: inout Cursor, _ line: TextLine, _ source: Source, what: String) throws(RecordingError) -> [UInt8]
    {
        var result: [UInt8] = []
        while !cursor.restIsBlank, cursor.peekAfterSpaces != UInt8(ascii: "#") {
            guard let byte = cursor.hex(maxDigits: 2) else {
                throw source.error(line.number, "\(what) expects hexadecimal bytes, got \(quoted(cursor.rest))")
            }
            result.append(UInt8(byte))
        }
        return result
    }

    /// Only spaces or a `#` comment may follow the fields.
    private static func expectEnd(_ cursor: inout Cursor, _ line: TextLine, _ source: Source) throws(RecordingError) {
        cursor.skipSpaces()
        guard cursor.atEnd || cursor.peek == UInt8(ascii: "#") else {
            throw source.error(line.number, "unexpected text after the fields: \(quoted(cursor.rest))")
        }
    }

    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }

    /// The description lines seen so far.
    private struct Header {
        /// KEY_MAX is 0x2ff: 96 bytes; anything far longer is not a real device.
        static let maximumBitmaskBytes = 1024
        var isPresent = false
        var name: String?
        var ids: [UInt16] = []
        var propertyBytes: [UInt8] = []
        var bitmasks: [UInt16: [UInt8]] = [:]
        var absInfo: [UInt16: AbsInfo] = [:]

        func description(fallbackName: String) -> DeviceDescription {
            var codes: [UInt16: Set<UInt16>] = [:]
            let typeMask = bitmasks[EV.syn].map(Header.bits)
            for (type, mask) in bitmasks where type != EV.syn {
                let set = Header.bits(mask)
                if !set.isEmpty { codes[type] = set }
            }
            if !absInfo.isEmpty { codes[EV.abs, default: []].formUnion(absInfo.keys) }
            if typeMask?.contains(EV.syn) ?? true { codes[EV.syn] = DeviceDescription.synCodes }
            return DeviceDescription(
                name: name ?? fallbackName,
                bus: ids.count == 4 ? ids[0] : 0, vendor: ids.count == 4 ? ids[1] : 0,
                product: ids.count == 4 ? ids[2] : 0, version: ids.count == 4 ? ids[3] : 0,
                properties: Header.bits(propertyBytes), codes: codes, absInfo: absInfo)
        }

        static func bits(_ bytes: [UInt8]) -> Set<UInt16> {
            var result: Set<UInt16> = []
            for (index, byte) in bytes.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << bit) != 0 { result.insert(UInt16(index * 8 + bit)) }
            }
            return result
        }
    }
}

extension Cursor {
    /// The next non-space byte, without consuming anything.
    var peekAfterSpaces: UInt8? {
        var probe = self
        probe.skipSpaces()
        return probe.peek
    }
}
