import GestureCore
import GestureProtocol

/// Reads `evtest` text: an optional header (`Input device ID:`, `Input device name:`,
/// `Supported events:` with `Event type`/`Event code` and axis `Value/Min/Max/Fuzz/Flat/
/// Resolution` lines, `Properties:`), then `Event: time S.US, …` lines.
///
/// Before the first event, lines it does not know are ignored (ChromiumOS captures carry
/// shell noise such as "If the display isn't showing…"); a header line that got glued to
/// the next one (`Resolution 12 Event code 54 (…)`) is read as two lines. From the first
/// event on, every non-blank line must be an event.
enum EvtestParser {
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ source: Source) throws(RecordingError) -> ParsedStream {
        var header = Header()
        var stream = ParsedStream()
        stream.events.reserveCapacity(bytes.count / 70)
        for line in LineSplitter(bytes) {
            var cursor = Cursor(bytes, line)
            cursor.skipSpaces()
            if cursor.atEnd { continue }
            if cursor.skip("Event:") {
                if stream.firstEventLine == nil {
                    stream.firstEventLine = line.number
                    if let headerLine = header.recoveredLine {
                        stream.notes.append("recovered a broken header line (\(headerLine))")
                    }
                }
                stream.events.append(try parseEvent(&cursor, line, source))
            } else if stream.firstEventLine != nil {
                throw source.error(line.number, "expected an 'Event: time …' line, got \(quoted(cursor.rest))")
            } else {
                try header.read(&cursor, line, source)
            }
        }
        if header.isPresent { stream.device = header.description() }
        return stream
    }

    /// `time S.US, type T (EV_X), code C (NAME), value V` or `time S.US, ---- SYN_REPORT ----`
    /// (also `SYN_MT_REPORT`, `SYN_DROPPED`, `SYN_CONFIG` between dashes, pluses or arrows).
    private static func parseEvent(_ cursor: inout Cursor, _ line: TextLine, _ source: Source) throws(RecordingError) -> InputEvent {
        cursor.skipSpaces()
        guard cursor.skip("time"), let time = cursor.timestamp() else {
            throw source.error(line.number, "event without 'time seconds.microseconds': \(quoted(cursor.rest))")
        }
        guard cursor.skip(",") else {
            throw source.error(line.number, "truncated event line: expected ', type …' after the time")
        }
        cursor.skipSpaces()
        if cursor.skip("type") {
            guard let type = cursor.decimal(), let eventType = UInt16(exactly: type), cursor.skipParenthesised(),
                cursor.skip(","), skipWord(&cursor, "code"), let code = cursor.decimal(),
                let eventCode = UInt16(exactly: code), cursor.skipParenthesised(), cursor.skip(","),
                skipWord(&cursor, "value")
            else {
                throw source.error(
                    line.number, "malformed or truncated event: expected 'type T (EV_…), code C (…), value V', got \(quoted(cursor.rest))")
            }
            guard let value = cursor.int32(), cursor.restIsBlank else {
                throw source.error(line.number, "event value must be a decimal 32-bit integer, got \(quoted(cursor.rest))")
            }
            return InputEvent(time: Timestamp(microseconds: time), type: eventType, code: eventCode, value: value)
        }
        let marker = cursor.rest.filter { $0 != "-" && $0 != "+" && $0 != "<" && $0 != ">" && $0 != " " }
        guard let code = EventCodeNames.code(named: marker, type: EV.syn) else {
            throw source.error(line.number, "unrecognised event \(quoted(cursor.rest)): expected 'type …' or a SYN_* marker")
        }
        return InputEvent(time: Timestamp(microseconds: time), type: EV.syn, code: code, value: 0)
    }

    private static func skipWord(_ cursor: inout Cursor, _ word: StaticString) -> Bool {
        cursor.skipSpaces()
        return cursor.skip(word)
    }

    /// The header state: which event type and axis the following lines belong to.
    private struct Header {
        var isPresent = false
        var name = "evtest device"
        var ids: [UInt16] = [0, 0, 0, 0]
        var properties: Set<UInt16> = []
        var codes: [UInt16: Set<UInt16>] = [:]
        var absInfo: [UInt16: AbsInfo] = [:]
        var currentType: UInt16?
        var currentAxis: UInt16?
        /// Whether `Value` lines now belong to key-repeat settings, not to an axis.
        var inKeyRepeat = false
        var recoveredLine: Int?

        mutating func read(_ cursor: inout Cursor, _ line: TextLine, _ source: Source, depth: Int = 0) throws(RecordingError) {
            if cursor.skip("Input device name:") {
                cursor.skipSpaces()
                var text = Substring(cursor.rest)
                if text.hasPrefix("\""), text.count >= 2, text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
                name = String(text)
                isPresent = true
            } else if cursor.skip("Input device ID:") {
                for (index, label) in ["bus", "vendor", "product", "version"].enumerated() {
                    guard let word = cursor.token(), cursor.string(word) == label, let value = cursor.hex(),
                        let id = UInt16(exactly: value)
                    else {
                        throw source.error(
                            line.number, "malformed 'Input device ID:' line: expected bus/vendor/product/version in hexadecimal")
                    }
                    ids[index] = id
                }
                isPresent = true
            } else if cursor.skip("Event type") {
                guard let type = cursor.decimal(), let eventType = UInt16(exactly: type) else {
                    throw source.error(line.number, "malformed 'Event type' line: \(quoted(cursor.rest))")
                }
                currentType = eventType
                currentAxis = nil
                isPresent = true
            } else if cursor.skip("Event code") {
                guard let code = cursor.decimal(), let eventCode = UInt16(exactly: code), let type = currentType else {
                    throw source.error(line.number, "'Event code' line outside an 'Event type' section: \(quoted(cursor.rest))")
                }
                _ = cursor.skipParenthesised()
                currentAxis = nil
                if type != EV.syn, type != EV.rep, !inKeyRepeat {
                    codes[type, default: []].insert(eventCode)
                    if type == EV.abs {
                        currentAxis = eventCode
                        absInfo[eventCode] = AbsInfo(minimum: 0, maximum: 0)
                    }
                }
                try continueGluedLine(&cursor, line, source, depth: depth)
            } else if cursor.skip("Key repeat handling:") || cursor.skip("Repeat type") {
                inKeyRepeat = true
                currentAxis = nil
            } else if cursor.skip("Properties:") {
                inKeyRepeat = false
                currentAxis = nil
            } else if cursor.skip("Property type") {
                guard let property = cursor.decimal(), let value = UInt16(exactly: property) else {
                    throw source.error(line.number, "malformed 'Property type' line: \(quoted(cursor.rest))")
                }
                properties.insert(value)
            } else if let field = Header.axisField(&cursor) {
                guard let axis = currentAxis, !inKeyRepeat else { return }
                guard let value = cursor.int32() else {
                    throw source.error(line.number, "axis field needs a decimal 32-bit value: \(quoted(cursor.rest))")
                }
                field(&absInfo[axis, default: AbsInfo(minimum: 0, maximum: 0)], value)
                try continueGluedLine(&cursor, line, source, depth: depth)
            }
            // Anything else before the first event is preamble noise: ignored.
        }

        /// A header line glued to the next one (`Resolution 12 Event code 54 (…)`); a few
        /// glued lines are followed, more is noise and ignored (no unbounded recursion).
        private mutating func continueGluedLine(_ cursor: inout Cursor, _ line: TextLine, _ source: Source, depth: Int)
            throws(RecordingError)
        {
            cursor.skipSpaces()
            guard !cursor.atEnd, depth < 8 else { return }
            if recoveredLine == nil { recoveredLine = line.number }
            try read(&cursor, line, source, depth: depth + 1)
        }

        private static func axisField(_ cursor: inout Cursor) -> ((inout AbsInfo, Int32) -> Void)? {
            if cursor.skip("Value") { return { $0.value = $1 } }
            if cursor.skip("Min") { return { $0.minimum = $1 } }
            if cursor.skip("Max") { return { $0.maximum = $1 } }
            if cursor.skip("Fuzz") { return { $0.fuzz = $1 } }
            if cursor.skip("Flat") { return { $0.flat = $1 } }
            if cursor.skip("Resolution") { return { $0.resolution = $1 } }
            return nil
        }

        func description() -> DeviceDescription {
            var codes = codes.filter { !$0.value.isEmpty }
            codes[EV.syn] = DeviceDescription.synCodes
            return DeviceDescription(
                name: name, bus: ids[0], vendor: ids[1], product: ids[2], version: ids[3],
                properties: properties, codes: codes, absInfo: absInfo)
        }
    }
}
