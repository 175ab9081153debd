import GestureCore

/// What a format reader got out of one text, before the description is settled
/// (the file may lack one: then a sibling file, `--device` or inference supplies it).
struct ParsedText {
    var format: RecordingFormat
    var streams: [ParsedStream]
}

/// One device's part of a parsed text.
struct ParsedStream {
    /// The description the text itself carries, if any.
    var device: DeviceDescription?
    /// A name the text gives without a full description (getevent's `add device` lines).
    var nameHint: String?
    var events: [InputEvent] = []
    /// Line of the first event, for "no description" errors.
    var firstEventLine: Int?
    var notes: [String] = []
}

/// The file being read, for error messages.
struct Source {
    let path: String

    func error(_ line: Int?, _ message: String) -> RecordingError {
        RecordingError(path: path, line: line, message: message)
    }
}

extension DeviceDescription {
    /// Adds every code the events use outside `EV_ABS` (keys, `SYN_*`, `MSC_*`), for
    /// descriptions that list only axes.
    mutating func addCodes(seenIn events: [InputEvent]) {
        for event in events where event.type != EV.abs {
            codes[event.type, default: []].insert(event.code)
        }
    }

    /// The `EV_SYN` codes a kernel device always supports.
    static let synCodes: Set<UInt16> = [SYN.report, SYN.config, SYN.mtReport, SYN.dropped]
}
