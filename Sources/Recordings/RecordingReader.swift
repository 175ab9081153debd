import GestureCore
import SystemCalls

/// Reads recordings in any supported format (detected from the content) and settles each
/// one's device description, in this order:
/// 1. `--device` (`devicePath` / `deviceText`): any file that carries a description (evemu
///    `.desc`/`.prop`/`.device`, an evtest header, a libinput record, a `.touchpad`);
/// 2. the description in the recording itself (evemu header, evtest header, libinput
///    record `evdev:` block);
/// 3. evemu events-only files: the sibling description (see `DescriptionLookup.evemuSibling`);
///    then, for those and for header-less evtest files, a ChromiumOS `device/*.touchpad`
///    near the file (see `DescriptionLookup.chooseTouchpad`);
/// 4. `getevent` traces: inferred from the events (`deviceInferred`, see `DeviceInference`).
/// Otherwise reading fails at the first event's line.
public enum RecordingReader {
    /// Reads one recording file. `devicePath` (the CLI's --device) overrides/supplies the
    /// description. A libinput record file with several devices (or a getevent trace of
    /// several nodes) returns one Recording per device. A description file alone gives one
    /// Recording with no events.
    public static func read(path: String, devicePath: String? = nil) throws(RecordingError) -> [Recording] {
        let bytes = try load(path)
        let override = try devicePath.map { (path) throws(RecordingError) in try readDevice(path: path) }
        return try assemble(bytes, Source(path: path), override: override.map { ($0, devicePath ?? "") })
    }

    /// Same from text already in memory (for tests), `path` used only for messages and
    /// sibling lookup.
    public static func parse(text: String, path: String, deviceText: String? = nil) throws(RecordingError) -> [Recording] {
        let override = try deviceText.map { (text) throws(RecordingError) in
            try parseDevice(text: text, path: path + " (--device)")
        }
        return try assemble(Array(text.utf8), Source(path: path), override: override.map { ($0, "--device text") })
    }

    /// Reads only a device description (for --device): the first device the file describes.
    public static func readDevice(path: String) throws(RecordingError) -> DeviceDescription {
        try describe(load(path), Source(path: path))
    }

    /// Same from text already in memory.
    public static func parseDevice(text: String, path: String) throws(RecordingError) -> DeviceDescription {
        try describe(Array(text.utf8), Source(path: path))
    }

    // MARK: - Loading

    /// The largest recording read (checked before reading it): the corpus's largest is
    /// 3 MiB; 256 MiB of evemu text is some 12 minutes of ten fingers at 240 Hz.
    public static let maximumFileSize = 256 << 20

    static func load(_ path: String) throws(RecordingError) -> [UInt8] {
        do {
            return try RegularFile.read(path: path, limit: maximumFileSize, kind: "recording")
        } catch {
            throw RecordingError(path: path, message: error.message)
        }
    }

    // MARK: - Parsing

    /// Detects the format and runs its reader.
    static func parseText(_ bytes: [UInt8], _ source: Source) throws(RecordingError) -> ParsedText {
        let outcome: Result<ParsedText, RecordingError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(RecordingError) {
                let format = try FormatDetector.detect(buffer, source)
                let fallbackName = DescriptionLookup.stemAndExtension(DescriptionLookup.split(source.path).fileName).stem
                switch format {
                case .evemu:
                    return .success(
                        ParsedText(format: format, streams: [try EvemuParser.parse(buffer, source, fallbackName: fallbackName)]))
                case .evtest:
                    return .success(ParsedText(format: format, streams: [try EvtestParser.parse(buffer, source)]))
                case .getevent:
                    return .success(ParsedText(format: format, streams: try GeteventParser.parse(buffer, source)))
                case .libinputRecord:
                    return .success(ParsedText(format: format, streams: try LibinputRecordParser.parse(buffer, source)))
                }
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private static func describe(_ bytes: [UInt8], _ source: Source) throws(RecordingError) -> DeviceDescription {
        let parsed = try parseText(bytes, source)
        guard let device = parsed.streams.lazy.compactMap(\.device).first else {
            throw source.error(nil, "no device description in this \(parsed.format.rawValue) file")
        }
        return device
    }

    private static func assemble(
        _ bytes: [UInt8], _ source: Source, override: (device: DeviceDescription, origin: String)?
    ) throws(RecordingError) -> [Recording] {
        let parsed = try parseText(bytes, source)
        guard !parsed.streams.isEmpty else { throw source.error(nil, "no events and no device description") }
        var recordings: [Recording] = []
        for stream in parsed.streams {
            var notes = stream.notes
            var inferred = false
            let device: DeviceDescription
            if let override {
                device = override.device
                notes.append("device from \(override.origin)")
            } else if let own = stream.device {
                device = own
            } else {
                (device, inferred) = try supplyDescription(for: stream, format: parsed.format, source, notes: &notes)
            }
            recordings.append(
                Recording(
                    path: source.path, format: parsed.format, device: device, deviceInferred: inferred,
                    events: stream.events, notes: notes))
        }
        return recordings
    }

    /// The description of a stream whose file has none.
    private static func supplyDescription(
        for stream: ParsedStream, format: RecordingFormat, _ source: Source, notes: inout [String]
    ) throws(RecordingError) -> (DeviceDescription, inferred: Bool) {
        guard let firstEventLine = stream.firstEventLine else {
            throw source.error(nil, "no events and no device description")
        }
        switch format {
        case .evemu, .evtest:
            if format == .evemu, let sibling = DescriptionLookup.evemuSibling(of: source.path) {
                notes.append("device from sibling file \(DescriptionLookup.split(sibling).fileName)")
                return (try readDevice(path: sibling), false)
            }
            var candidates: [(name: String, device: DeviceDescription)] = []
            for file in DescriptionLookup.touchpadFiles(near: source.path) {
                let name = DescriptionLookup.stemAndExtension(DescriptionLookup.split(file).fileName).stem
                candidates.append((name, try readDevice(path: file)))
            }
            guard let choice = DescriptionLookup.chooseTouchpad(for: source.path, events: stream.events, candidates: candidates) else {
                let missing =
                    format == .evemu
                    ? "no N:/I:/B:/A: header, no sibling .desc/.prop/.device file"
                    : "no evtest header"
                let touchpads = candidates.isEmpty ? "" : ", none of the touchpads \(candidates.map(\.name)) fits the data"
                throw source.error(firstEventLine, "event before any device description: \(missing)\(touchpads), and no --device given")
            }
            var device = choice.device
            device.addCodes(seenIn: stream.events)
            notes.append("device from \(choice.name).touchpad (\(choice.reason)); key codes added from the events")
            return (device, false)
        case .getevent:
            let name = stream.nameHint ?? DescriptionLookup.stemAndExtension(DescriptionLookup.split(source.path).fileName).stem
            notes.append("device inferred from the events (ranges rounded up from the largest values seen)")
            return (DeviceInference.describe(name: name, events: stream.events), true)
        case .libinputRecord:
            throw source.error(firstEventLine, "device entry without an 'evdev:' description")
        }
    }
}
