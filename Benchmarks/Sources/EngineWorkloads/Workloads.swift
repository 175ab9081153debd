import Foundation
import GestureCore
import GestureProtocol
import Recordings

/// One recording ready to replay: its events in memory and its device settings resolved
/// (the parts of `Replayer` that are file reading and configuration, done once).
public struct PreparedRecording: Sendable {
    public var device: DeviceDescription
    public var settings: ResolvedDeviceSettings
    public var events: [InputEvent]
}

/// The whole corpus held in memory.
public struct Corpus: Sendable {
    public var recordings: [PreparedRecording]
    public var fileCount: Int
    public var eventCount: Int
    public var frameCount: Int

    /// `GESTURED_CORPUS`, else the nearest `shared/corpus` beside the repository or one of
    /// its parent folders (`../shared/corpus` in CI).
    public static var defaultPath: String {
        if let path = ProcessInfo.processInfo.environment["GESTURED_CORPUS"], !path.isEmpty { return path }
        // #filePath: <repo>/Benchmarks/Sources/EngineWorkloads/Workloads.swift
        var folder = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { folder.deleteLastPathComponent() }
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/corpus").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        fatalError("corpus not found beside the repository (set GESTURED_CORPUS)")
    }

    /// Reads every recording file under `path` (as `gestured replay` would, default
    /// configuration). A file that does not read is a fatal error: the figures are for
    /// the whole corpus or nothing.
    public static func load(path: String = defaultPath) -> Corpus {
        let configuration = Configuration()
        guard let walker = FileManager.default.enumerator(atPath: path) else {
            fatalError("corpus not found at \(path) (set GESTURED_CORPUS)")
        }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let fileName = (relative as NSString).lastPathComponent
            guard RecordingFileKind(fileName: fileName) == .recording else { continue }
            files.append(path + "/" + relative)
        }
        files.sort()
        var recordings: [PreparedRecording] = []
        for file in files {
            do {
                for recording in try RecordingReader.read(path: file) {
                    let settings = configuration.settings(
                        forDevice: recording.device.name, vendor: recording.device.vendor,
                        product: recording.device.product, paths: [])
                    recordings.append(PreparedRecording(device: recording.device, settings: settings, events: recording.events))
                }
            } catch {
                fatalError("\(error)")
            }
        }
        let events = recordings.reduce(0) { $0 + $1.events.count }
        let frames = recordings.reduce(0) { total, recording in
            total + recording.events.reduce(0) { $0 + ($1.type == EV.syn && $1.code == SYN.report ? 1 : 0) }
        }
        guard !files.isEmpty, events > 0 else { fatalError("no recordings under \(path)") }
        return Corpus(recordings: recordings, fileCount: files.count, eventCount: events, frameCount: frames)
    }
}

/// A sink that knows how many gestures it received.
public protocol CountedSink: GestureSink {
    var emitted: Int { get }
}

/// Discards gestures, counting them (and folding their ids and times into a checksum so
/// the optimiser cannot drop the work).
public struct CountingSink: CountedSink {
    public var lastID: UInt64 = 0
    public var gestures = 0
    public var checksum: UInt64 = 0
    public var emitted: Int { gestures }

    public init() {}

    public mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    public mutating func emit(_ event: GestureEvent) {
        gestures += 1
        checksum = checksum &* 31 &+ event.id &+ event.time.microseconds
    }
}

/// Encodes every gesture as its wire line (GestureProtocol's encoder) into one reused
/// buffer, as the daemon does.
public struct EncodingSink: CountedSink {
    public var buffer: [UInt8] = []
    public var device: String
    public var lastID: UInt64 = 0
    public var seq: UInt64 = 0
    public var bytesWritten = 0
    /// Every byte written, when not nil (`engine-profile dump`); nil in the benchmarks.
    public var kept: [UInt8]?
    public var emitted: Int { Int(seq) }

    public init(device: String = "") {
        self.device = device
        buffer.reserveCapacity(1 << 16)
    }

    public mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    public mutating func emit(_ event: GestureEvent) {
        seq += 1
        WireEncoder.append(GestureMessage(event, device: device, seq: seq), to: &buffer)
        if buffer.count >= 1 << 15 { flush() }
    }

    /// Stands in for the socket write: counts the bytes and empties the buffer.
    public mutating func flush() {
        bytesWritten += buffer.count
        kept? += buffer
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Feeds `events` (times shifted by `timeOffset`) through `pipeline` exactly as
/// `Replayer` does: due timers fire before each event at their deadlines.
@inline(__always)
public func feed<S: GestureSink>(_ events: ArraySlice<InputEvent>, timeOffset: TimeSpan = .zero, into pipeline: inout DevicePipeline, sink: inout S) -> Timestamp {
    var lastTime = Timestamp.zero
    for var event in events {
        event.time = event.time + timeOffset
        if let deadline = pipeline.nextDeadline, deadline <= event.time {
            pipeline.advance(to: event.time, into: &sink)
        }
        pipeline.feed(event, into: &sink)
        lastTime = max(lastTime, event.time)
    }
    return lastTime
}

/// Replays every recording of the corpus, each through a new pipeline (the per-recording
/// setup is part of the work), and finishes it as `gestured replay` does.
/// `configuration` replaces every recording's gestures and regions (nil: the defaults).
public func replayCorpus<S: GestureSink>(_ corpus: Corpus, configuration: EngineConfiguration? = nil, into sink: inout S, beforeRecording: (inout S, PreparedRecording) -> Void = { _, _ in }) {
    for recording in corpus.recordings {
        beforeRecording(&sink, recording)
        var pipeline = DevicePipeline(device: recording.device, geometry: recording.settings.geometry, configuration: configuration ?? recording.settings.engine)
        let lastTime = feed(recording.events[...], into: &pipeline, sink: &sink)
        pipeline.finish(at: lastTime, into: &sink)
    }
}

/// Nested regions as a kiosk screen has them (docs/gestures.md, the worked examples): a
/// full-screen scrolling page, a 4 × 3 grid of buttons on it (press and tap only), and a
/// hidden corner that long-presses over everything. A touch is offered to up to three
/// regions plus the top level.
public let nestedRegions: EngineConfiguration = {
    var button = GestureSettings()
    button.enabled = [.press, .tap]
    var corner = GestureSettings()
    corner.enabled = [.longPress]
    var regions = [Region(name: "page", rect: Rect(x: 0, y: 0, width: 1, height: 1))]
    for row in 0..<3 {
        for column in 0..<4 {
            regions.append(Region(name: "button-\(row)-\(column)",
                                  rect: Rect(x: 0.05 + Double(column) * 0.23, y: 0.1 + Double(row) * 0.28, width: 0.2, height: 0.2),
                                  settings: button))
        }
    }
    regions.append(Region(name: "corner", rect: Rect(x: 0, y: 0, width: 0.3, height: 0.3), settings: corner))
    return EngineConfiguration(regions: regions)
}()

/// Every touch hygiene filter on: what the steady workloads run with to show
/// that touch hygiene allocates nothing per frame either. The synthetic streams' taps come
/// 150–300 ms apart, so `ignore-repeat` drops some and `hold-duration` holds every touch.
public let everyTouchFilter = TouchHygieneSettings(
    debounce: .milliseconds(60), ignoreRepeat: .milliseconds(100), holdDuration: .milliseconds(50), stuckAfter: .seconds(30),
    phantom: .suppress)
