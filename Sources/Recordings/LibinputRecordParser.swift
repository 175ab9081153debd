import GestureCore
import GestureProtocol

/// Reads `libinput record` YAML (libinput-record(1), "FILE FORMAT"):
///
///     devices:
///     - node: /dev/input/event6
///       evdev:
///         name: "ELAN Touchscreen"
///         id: [3, 1267, 268, 272]
///         codes:
///           3: [0, 1, 47, 53, 54, 57] # EV_ABS
///         absinfo:
///           53: [0, 3312, 0, 0, 10]      # min, max, fuzz, flat, resolution
///         properties: [1]
///       events:
///       - evdev:
///         - [  0,      0,   3,  57,     29] # sec, usec, type, code, value
///
/// This is a hand-written reader for the subset libinput writes (block mappings and
/// sequences by indentation, flow sequences of integers, `#` comments), not a YAML
/// library: event rows are nearly the whole file and this keeps them a single pass over
/// bytes with exact line numbers in errors. Keys it does not use (`libinput`, `system`,
/// `hid`, `udev`, `quirks`, `- libinput:` event frames) are skipped.
enum LibinputRecordParser {
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ source: Source) throws(RecordingError) -> [ParsedStream] {
        var reader = Reader(source: source)
        for line in LineSplitter(bytes) {
            var cursor = Cursor(bytes, line)
            var indent = 0
            while let byte = cursor.peek, byte == UInt8(ascii: " ") {
                indent += 1
                cursor.position += 1
            }
            guard let first = cursor.peek, first != UInt8(ascii: "#") else { continue }
            if first == UInt8(ascii: "\t") {
                throw source.error(line.number, "tab used for indentation (YAML allows spaces only)")
            }
            try reader.read(&cursor, indent: indent, line: line)
        }
        return try reader.finish()
    }

    /// Where the reader is in the document.
    private enum Block {
        /// Outside `devices:` (or before it).
        case outside
        /// Inside the `devices:` list, between device keys.
        case device
        /// Inside a device's `evdev:` mapping; `key` is the child block being read.
        case evdev(keyIndent: Int?, key: EvdevKey)
        /// Inside a device's `events:` list.
        case events(itemIndent: Int?, frameIsEvdev: Bool)
        /// Inside a device key this reader ignores (`hid`, `udev`, `quirks`, …).
        case skipped
    }

    private enum EvdevKey { case none, codes, absinfo }

    private struct DeviceBuilder {
        var line: Int
        var name: String?
        var ids: [UInt16] = [0, 0, 0, 0]
        var codes: [UInt16: Set<UInt16>] = [:]
        var absInfo: [UInt16: AbsInfo] = [:]
        var properties: Set<UInt16> = []
        var hasEvdev = false
        var stream = ParsedStream()
    }

    private struct Reader {
        let source: Source
        var inDevices = false
        var deviceItemIndent: Int?
        var block = Block.outside
        var devices: [DeviceBuilder] = []

        var deviceKeyIndent: Int { (deviceItemIndent ?? 0) + 2 }

        mutating func read(_ cursor: inout Cursor, indent: Int, line: TextLine) throws(RecordingError) {
            let isItem = cursor.startsWith("- ") || (cursor.startsWith("-") && cursor.end - cursor.position == 1)
            if indent == 0 && !isItem {
                let key = cursor.until(UInt8(ascii: ":"))
                guard cursor.skip(":") else {
                    throw source.error(line.number, "expected a 'key:' line, got \(quoted(cursor.string(key)))")
                }
                inDevices = cursor.string(key) == "devices"
                block = .outside
                return
            }
            guard inDevices else { return }
            if isItem, deviceItemIndent == nil || indent == deviceItemIndent {
                deviceItemIndent = indent
                devices.append(DeviceBuilder(line: line.number))
                cursor.position += 1
                cursor.skipSpaces()
                guard !cursor.atEnd else {
                    block = .device
                    return
                }
                try readDeviceKey(&cursor, line: line)
                return
            }
            guard !devices.isEmpty else {
                throw source.error(line.number, "expected a '- ' device entry under 'devices:'")
            }
            if !isItem && indent <= deviceKeyIndent {
                guard indent == deviceKeyIndent else {
                    throw source.error(line.number, "unexpected indentation \(indent) (device keys are at \(deviceKeyIndent))")
                }
                try readDeviceKey(&cursor, line: line)
                return
            }
            switch block {
            case .outside, .device, .skipped:
                return
            case .evdev(let keyIndent, let key):
                try readEvdev(&cursor, indent: indent, keyIndent: keyIndent, key: key, line: line)
            case .events(let itemIndent, let frameIsEvdev):
                guard isItem else { return }
                if itemIndent == nil || indent == itemIndent {
                    cursor.position += 1
                    cursor.skipSpaces()
                    block = .events(itemIndent: indent, frameIsEvdev: cursor.skip("evdev:"))
                } else if frameIsEvdev {
                    cursor.position += 1
                    try readEventRow(&cursor, line: line)
                }
            }
        }

        private mutating func readDeviceKey(_ cursor: inout Cursor, line: TextLine) throws(RecordingError) {
            if cursor.skip("evdev:") {
                devices[devices.count - 1].hasEvdev = true
                block = .evdev(keyIndent: nil, key: .none)
            } else if cursor.skip("events:") {
                block = .events(itemIndent: nil, frameIsEvdev: false)
            } else {
                block = .skipped
            }
        }

        private mutating func readEvdev(
            _ cursor: inout Cursor, indent: Int, keyIndent: Int?, key: EvdevKey, line: TextLine
        ) throws(RecordingError) {
            let index = devices.count - 1
            if let keyIndent, indent > keyIndent {
                // A child of `codes:` or `absinfo:`: `NUMBER: [integers]`.
                guard let number = cursor.decimal(), let code = UInt16(exactly: number), cursor.skip(":"),
                    let values = cursor.flowIntegers(), cursor.restIsBlankOrComment
                else {
                    throw source.error(line.number, "expected 'NUMBER: [integers]', got \(quoted(cursor.rest))")
                }
                switch key {
                case .none:
                    return
                case .codes:
                    var set: Set<UInt16> = []
                    for value in values {
                        guard let code = UInt16(exactly: value) else {
                            throw source.error(line.number, "event code \(value) out of range")
                        }
                        set.insert(code)
                    }
                    if !set.isEmpty { devices[index].codes[code, default: []].formUnion(set) }
                case .absinfo:
                    let numbers = values.compactMap { Int32(exactly: $0) }
                    guard numbers.count == values.count, numbers.count >= 4, numbers.count <= 5 else {
                        throw source.error(line.number, "absinfo needs [min, max, fuzz, flat, resolution] as 32-bit integers")
                    }
                    devices[index].absInfo[code] = AbsInfo(
                        minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                        resolution: numbers.count > 4 ? numbers[4] : 0)
                }
                return
            }
            var next = EvdevKey.none
            if cursor.skip("name:") {
                cursor.skipSpaces()
                devices[index].name = Reader.scalarString(cursor.rest)
            } else if cursor.skip("id:") {
                guard let values = cursor.flowIntegers(), values.count == 4 else {
                    throw source.error(line.number, "id needs [bus, vendor, product, version]")
                }
                devices[index].ids = values.map { UInt16(truncatingIfNeeded: $0) }
            } else if cursor.skip("properties:") {
                guard let values = cursor.flowIntegers() else {
                    throw source.error(line.number, "properties needs a list of integers, got \(quoted(cursor.rest))")
                }
                devices[index].properties = Set(values.compactMap { UInt16(exactly: $0) })
            } else if cursor.skip("codes:") {
                next = .codes
            } else if cursor.skip("absinfo:") {
                next = .absinfo
            }
            block = .evdev(keyIndent: keyIndent ?? indent, key: next)
        }

        private mutating func readEventRow(_ cursor: inout Cursor, line: TextLine) throws(RecordingError) {
            guard let values = cursor.flowIntegers(), cursor.restIsBlankOrComment else {
                throw source.error(line.number, "malformed event row: expected [sec, usec, type, code, value], got \(quoted(cursor.rest))")
            }
            guard values.count == 5 else {
                throw source.error(line.number, "event row needs 5 numbers [sec, usec, type, code, value], got \(values.count)")
            }
            guard values[0] >= 0, values[1] >= 0, values[1] < 1_000_000, let type = UInt16(exactly: values[2]),
                let code = UInt16(exactly: values[3]), let value = Int32(exactly: values[4])
            else {
                throw source.error(line.number, "event row out of range: \(values)")
            }
            let (scaled, overflow1) = UInt64(values[0]).multipliedReportingOverflow(by: 1_000_000)
            let (time, overflow2) = scaled.addingReportingOverflow(UInt64(values[1]))
            guard !overflow1, !overflow2 else { throw source.error(line.number, "timestamp out of range") }
            let index = devices.count - 1
            if devices[index].stream.firstEventLine == nil { devices[index].stream.firstEventLine = line.number }
            devices[index].stream.events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
        }

        /// A YAML scalar: a double-quoted string (with `\"` and `\\`), or plain text up to a comment.
        static func scalarString(_ text: String) -> String {
            guard text.hasPrefix("\"") else {
                let plain = text.split(separator: " #", maxSplits: 1).first.map(String.init) ?? text
                return plain.trimmingQuotes
            }
            var result = ""
            var escaped = false
            for character in text.dropFirst() {
                if escaped {
                    result.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    result.append(character)
                }
            }
            return result
        }

        func finish() throws(RecordingError) -> [ParsedStream] {
            guard !devices.isEmpty else { throw source.error(nil, "libinput record file without any device under 'devices:'") }
            var streams: [ParsedStream] = []
            for device in devices {
                guard device.hasEvdev else {
                    throw source.error(device.line, "device entry without an 'evdev:' description")
                }
                var codes = device.codes
                codes[EV.abs, default: []].formUnion(device.absInfo.keys)
                codes = codes.filter { !$0.value.isEmpty }
                var stream = device.stream
                stream.device = DeviceDescription(
                    name: device.name ?? "libinput record device", bus: device.ids[0], vendor: device.ids[1],
                    product: device.ids[2], version: device.ids[3], properties: device.properties,
                    codes: codes, absInfo: device.absInfo)
                streams.append(stream)
            }
            return streams
        }
    }
}

extension Cursor {
    /// `[1, 2, -3]` (spaces allowed), as integers.
    mutating func flowIntegers() -> [Int64]? {
        skipSpaces()
        guard skip("[") else { return nil }
        var values: [Int64] = []
        skipSpaces()
        if skip("]") { return values }
        while true {
            guard let value = decimal() else { return nil }
            values.append(value)
            skipSpaces()
            if skip("]") { return values }
            guard skip(",") else { return nil }
        }
    }

    /// Whether only spaces or a `#` comment remain.
    var restIsBlankOrComment: Bool {
        let next = peekAfterSpaces
        return next == nil || next == UInt8(ascii: "#")
    }
}
