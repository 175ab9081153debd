import GestureCore

/// One device's recorded input: what the device is and what it sent, in recorded order.
public struct Recording: Sendable {
    /// The file the events came from.
    public var path: String
    public var format: RecordingFormat
    public var device: DeviceDescription
    /// True when the description was guessed from the events (ranges from the largest
    /// values seen), as for `getevent` traces given without `--device`.
    public var deviceInferred: Bool
    /// Events in recorded order; `time` in microseconds. Time may go backwards in a
    /// recording: it is kept as recorded (the engine clamps).
    public var events: [InputEvent]
    /// Where the description came from and anything the reader had to work around,
    /// one sentence each (e.g. "device from sibling file X.desc").
    public var notes: [String]

    public init(
        path: String, format: RecordingFormat, device: DeviceDescription, deviceInferred: Bool = false,
        events: [InputEvent], notes: [String] = []
    ) {
        self.path = path
        self.format = format
        self.device = device
        self.deviceInferred = deviceInferred
        self.events = events
        self.notes = notes
    }
}

/// The text formats the readers understand (detected from the content, not the file name).
public enum RecordingFormat: String, Sendable, CaseIterable {
    /// `evemu-record` / `evemu-describe` output (versions 1.1–1.3), also bare `.desc`,
    /// `.prop`, `.device` and ChromiumOS `.touchpad` descriptions.
    case evemu
    /// `libinput record` YAML.
    case libinputRecord = "libinput-record"
    /// `evtest` text output.
    case evtest
    /// Android `getevent -lt` (or `-t`) output.
    case getevent
}

/// Why a recording could not be read: the file, the line when there is one, and the problem.
public struct RecordingError: Error, CustomStringConvertible, Equatable {
    public var path: String
    /// 1-based line number, or nil when the problem is the file as a whole.
    public var line: Int?
    public var message: String

    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `PATH:LINE: message`, or `PATH: message`; control characters (bytes quoted from
    /// the file) escaped, so the line is safe to print and log.
    public var description: String {
        if let line { return DisplayText.escaped("\(path):\(line): \(message)") }
        return DisplayText.escaped("\(path): \(message)")
    }
}
