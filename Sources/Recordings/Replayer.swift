import GestureCore
import GestureProtocol

/// Receives replay output: the wire lines a subscriber of every gesture would read.
struct ReplayLineSink: GestureSink {
    var lines: [UInt8] = []
    var device: String
    var lastSeq: UInt64
    var lastID: UInt64

    mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    mutating func emit(_ event: GestureEvent) {
        lastSeq += 1
        WireEncoder.append(GestureMessage(event, device: device, seq: lastSeq), to: &lines)
    }
}

/// Runs recordings through the real pipeline in virtual time, as fast as the machine allows:
/// events in recorded order, timers firing at their deadlines in order between them.
public struct Replayer {
    public var configuration: Configuration
    /// Receives every recognizer state transition (`gestured replay --trace`).
    public var transitionLog: ((String) -> Void)?
    /// Last `seq` and gesture `id` written: replaying several files continues both, as one
    /// connection to the daemon would see them.
    public private(set) var lastSeq: UInt64 = 0
    public private(set) var lastID: UInt64 = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Replays one recording, handing the encoded lines to `write` in chunks.
    public mutating func replay(_ recording: Recording, write: ([UInt8]) -> Void) {
        var sink = ReplayLineSink(device: recording.device.name, lastSeq: lastSeq, lastID: lastID)
        sink.lines.reserveCapacity(1 << 16)
        run(recording, into: &sink) { sink in
            if sink.lines.count >= 1 << 15 {
                write(sink.lines)
                sink.lines.removeAll(keepingCapacity: true)
            }
        }
        write(sink.lines)
        lastSeq = sink.lastSeq
        lastID = sink.lastID
    }

    /// Replays one recording into `sink` (tests collect the events: GestureTestSupport's
    /// `gestures(of:)`).
    public func replay<S: GestureSink>(_ recording: Recording, into sink: inout S) {
        run(recording, into: &sink) { _ in }
    }

    private func run<S: GestureSink>(_ recording: Recording, into sink: inout S, afterEvent: (inout S) -> Void) {
        let device = configuration.settings(
            forDevice: recording.device.name, vendor: recording.device.vendor, product: recording.device.product, paths: [])
        var pipeline = DevicePipeline(
            device: recording.device, geometry: device.geometry, configuration: device.engine, touch: device.touch)
        pipeline.transitionLog = transitionLog
        var lastTime = Timestamp.zero
        for event in recording.events {
            if let deadline = pipeline.nextDeadline, deadline <= event.time {
                pipeline.advance(to: event.time, into: &sink)
            }
            pipeline.feed(event, into: &sink)
            lastTime = max(lastTime, event.time)
            afterEvent(&sink)
        }
        pipeline.finish(at: lastTime, into: &sink)
    }
}
