import GestureCore
import GestureProtocol

/// Reads Android `getevent -lt` output (`-t` alone works too: numbers instead of names):
///
///     [    1193.605705] EV_ABS       ABS_MT_POSITION_X    00000213
///     [    1193.605705] /dev/input/event2: EV_KEY BTN_TOUCH DOWN
///
/// Values are 32-bit hexadecimal (`ffffffff` is -1) or, for keys, `DOWN`/`UP`/`REPEAT`.
/// Events of different `/dev/input/…` nodes become separate streams. `add device` blocks
/// name the nodes; other preamble (`could not get driver version…`, indented lines) is
/// skipped. A code name this reader does not know is skipped (and counted in the notes);
/// an unknown type name is an error.
enum GeteventParser {
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ source: Source) throws(RecordingError) -> [ParsedStream] {
        var streams: [ParsedStream] = []
        var streamIndex: [String: Int] = [:]
        var names: [String: String] = [:]
        var lastAddedNode: String?
        var skippedNames: [String: Int] = [:]

        for line in LineSplitter(bytes) {
            var cursor = Cursor(bytes, line)
            if cursor.peek.map(Cursor.isSpace) ?? true {
                // Indented: the `name:` (and other) lines of an `add device` block.
                cursor.skipSpaces()
                if cursor.skip("name:"), let node = lastAddedNode {
                    cursor.skipSpaces()
                    names[node] = cursor.rest.trimmingQuotes
                }
                continue
            }
            if cursor.skip("add device") {
                _ = cursor.until(UInt8(ascii: ":"))
                _ = cursor.skip(":")
                lastAddedNode = cursor.token().map(cursor.string)
                continue
            }
            if cursor.skip("could not") || cursor.skip("remove device") { continue }

            var time: UInt64?
            var node: String?
            if cursor.skip("[") {
                guard let stamp = cursor.timestamp(), cursor.peekAfterSpaces == UInt8(ascii: "]") else {
                    throw source.error(line.number, "malformed timestamp: expected '[ seconds.microseconds]', got \(quoted(cursor.rest))")
                }
                cursor.skipSpaces()
                _ = cursor.skip("]")
                time = stamp
            }
            cursor.skipSpaces()
            if cursor.startsWith("/dev/") {
                let path = cursor.until(UInt8(ascii: ":"))
                guard cursor.skip(":") else {
                    throw source.error(line.number, "expected ':' after the device node, got \(quoted(cursor.rest))")
                }
                node = cursor.string(path)
            }
            if time == nil {
                cursor.skipSpaces()
                if cursor.skip("[") {
                    guard let stamp = cursor.timestamp(), cursor.peekAfterSpaces == UInt8(ascii: "]") else {
                        throw source.error(line.number, "malformed timestamp: expected '[ seconds.microseconds]'")
                    }
                    cursor.skipSpaces()
                    _ = cursor.skip("]")
                    time = stamp
                }
            }
            guard let time else {
                throw source.error(line.number, "event without a timestamp (record with 'getevent -lt'): \(quoted(cursor.rest))")
            }
            guard let typeToken = cursor.token(), let codeToken = cursor.token(), let valueToken = cursor.token(),
                cursor.restIsBlank
            else {
                throw source.error(line.number, "truncated or malformed event: expected 'TYPE CODE VALUE' after the time")
            }
            let type = try eventType(cursor, typeToken, line, source)
            let value = try eventValue(cursor, valueToken, line, source)
            let key = node ?? ""
            let index: Int
            if let existing = streamIndex[key] {
                index = existing
            } else {
                index = streams.count
                streamIndex[key] = index
                var stream = ParsedStream()
                stream.nameHint = node
                stream.events.reserveCapacity(bytes.count / 70)
                streams.append(stream)
            }
            guard let code = eventCode(cursor, codeToken, type: type) else {
                skippedNames[cursor.string(codeToken), default: 0] += 1
                continue
            }
            if streams[index].firstEventLine == nil { streams[index].firstEventLine = line.number }
            streams[index].events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
        }
        for index in streams.indices {
            if let node = streams[index].nameHint, let name = names[node] { streams[index].nameHint = name }
        }
        if !skippedNames.isEmpty, !streams.isEmpty {
            let list = skippedNames.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            streams[0].notes.append("skipped events with unknown code names: \(list)")
        }
        return streams
    }

    private static func eventType(_ cursor: Cursor, _ token: Range<Int>, _ line: TextLine, _ source: Source) throws(RecordingError)
        -> UInt16
    {
        let text = cursor.string(token)
        if let type = EventCodeNames.type(named: text) { return type }
        if text.utf8.count <= 4, let number = UInt16(text, radix: 16) { return number }
        throw source.error(line.number, "unknown event type \(quoted(text))")
    }

    /// A code name, or a hexadecimal number; nil for a name this reader does not know.
    private static func eventCode(_ cursor: Cursor, _ token: Range<Int>, type: UInt16) -> UInt16? {
        let text = cursor.string(token)
        if let code = EventCodeNames.code(named: text, type: type) { return code }
        if text.utf8.count <= 4, let number = UInt16(text, radix: 16) { return number }
        return nil
    }

    private static func eventValue(_ cursor: Cursor, _ token: Range<Int>, _ line: TextLine, _ source: Source) throws(RecordingError)
        -> Int32
    {
        let text = cursor.string(token)
        switch text {
        case "DOWN": return 1
        case "UP": return 0
        case "REPEAT": return 2
        default:
            guard text.utf8.count <= 8, let bits = UInt32(text, radix: 16) else {
                throw source.error(line.number, "event value must be up to 8 hexadecimal digits (or DOWN/UP/REPEAT), got \(quoted(text))")
            }
            return Int32(bitPattern: bits)
        }
    }
}

extension String {
    /// The string without one pair of surrounding double quotes.
    var trimmingQuotes: String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }
}
