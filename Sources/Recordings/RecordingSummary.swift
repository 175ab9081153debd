import GestureCore
import GestureProtocol

/// A one-line account of a recording: for corpus tables, `gestured replay` headers and logs.
public struct RecordingSummary: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var format: RecordingFormat
    public var deviceName: String
    public var deviceInferred: Bool
    public var eventCount: Int
    /// `SYN_REPORT` count.
    public var frameCount: Int
    /// Latest minus earliest timestamp.
    public var duration: TimeSpan
    /// How many times the timestamp went backwards from one event to the next.
    public var backwardSteps: Int
    /// Whether the events use `SYN_MT_REPORT` (multitouch protocol A).
    public var usesProtocolA: Bool
    /// The largest number of tracking ids (protocol B) active at once.
    public var maxContacts: Int

    public init(_ recording: Recording) {
        path = recording.path
        format = recording.format
        deviceName = recording.device.name
        deviceInferred = recording.deviceInferred
        eventCount = recording.events.count
        var frames = 0
        var earliest = Timestamp.distantFuture
        var latest = Timestamp.zero
        var backward = 0
        var previous: Timestamp?
        var protocolA = false
        var slot: Int32 = 0
        var activeSlots: Set<Int32> = []
        var most = 0
        for event in recording.events {
            earliest = min(earliest, event.time)
            latest = max(latest, event.time)
            if let previous, event.time < previous { backward += 1 }
            previous = event.time
            switch (event.type, event.code) {
            case (EV.syn, SYN.report): frames += 1
            case (EV.syn, SYN.mtReport): protocolA = true
            case (EV.abs, ABS.mtSlot): slot = event.value
            case (EV.abs, ABS.mtTrackingID):
                if event.value < 0 { activeSlots.remove(slot) } else { activeSlots.insert(slot) }
                most = max(most, activeSlots.count)
            default: break
            }
        }
        frameCount = frames
        duration = recording.events.isEmpty ? .zero : latest - earliest
        backwardSteps = backward
        usesProtocolA = protocolA
        maxContacts = most
    }

    /// `format  device  events  frames  seconds  path`, tab-separated.
    public var description: String {
        let seconds = duration.seconds
        let device = deviceInferred ? "\(deviceName) (inferred)" : deviceName
        let rounded = (seconds * 1000).rounded() / 1000
        return "\(format.rawValue)\t\(device)\t\(eventCount) events\t\(frameCount) frames\t\(rounded) s\t\(path)"
    }
}

extension Recording {
    /// The one-line account of this recording.
    public var summary: RecordingSummary { RecordingSummary(self) }
}

/// Which files of a recordings folder are what, by extension (for corpus walks).
public enum RecordingFileKind: Sendable, Equatable {
    /// Events, possibly with their own description (`.events`, `.event`, `.evemu`, `.dat`,
    /// `.txt`, `.yml`, `.yaml`).
    case recording
    /// A device description only (`.desc`, `.prop`, `.device`, `.touchpad`).
    case description
    /// Anything else (licences, READMEs).
    case other

    public init(fileName: String) {
        let lowered = fileName.lowercased()
        let ext = DescriptionLookup.stemAndExtension(lowered).ext
        if ["readme.md", "readme.txt", "license", "copying"].contains(lowered) || lowered.hasPrefix("readme") {
            self = .other
        } else if ["desc", "prop", "device", "touchpad"].contains(ext) {
            self = .description
        } else if ["events", "event", "evemu", "dat", "txt", "yml", "yaml"].contains(ext) {
            self = .recording
        } else {
            self = .other
        }
    }
}
