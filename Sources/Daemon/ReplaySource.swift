import GestureCore
import GestureProtocol
import SystemPackage

/// Plays a recording in real time (scaled by `speed`) through a `DevicePipeline`, as a
/// virtual device: `gestured run --replay`.
///
/// It runs the same steps as `gestured replay` (`Replayer`): events in recorded order, each
/// preceded by the timers due at or before it, and at the end the contacts still down are
/// cancelled and the remaining timers fire at their deadlines; only here the loop waits for
/// each moment in real time. So the gestures equal `gestured replay`'s apart from `seq` and
/// `time`: times are the recording's own shifted by one constant, so that the first event
/// is "now" on the loop's CLOCK_MONOTONIC clock. At speed 1 every time is thus a true
/// monotonic timestamp (delivery latency can be measured against it); at other speeds times
/// keep the recording's spacing while playback is faster or slower. With `loops`, each pass
/// starts just after the previous one ended (times keep increasing).
public final class ReplaySource: InputSource {
    public let device: DeviceInfo
    public var fileDescriptor: FileDescriptor? { nil }
    private let description: DeviceDescription
    private let recorded: [InputEvent]
    /// The latest recorded time (recordings are not always in order).
    private let lastRecordedTime: Timestamp
    private var pipeline: DevicePipeline
    public var ghosts: [GhostSeries] { pipeline.hygiene.ghostSeries(device: device.name) }
    private var timeline: ReplayTimeline
    private let loops: Bool
    private var index = 0
    private var phase = Phase.playing

    /// Events (and engine timers) handled per `deadlineReached` at most, so that a replay
    /// running behind (a slow machine, a huge `--speed`) hands the loop back to clients and
    /// signals between batches instead of catching up in one go.
    static let maximumStepsPerDispatch = 256

    private enum Phase {
        /// Feeding events (and the timers due between them).
        case playing
        /// The pass's events are in; the remaining timers fire at their deadlines.
        case draining(endTime: Timestamp, timersLeft: Int)
    }

    public init(
        description: DeviceDescription, events: [InputEvent], path: String?, configuration: Configuration,
        speed: Double = 1, loops: Bool = false, now: Timestamp
    ) {
        self.description = description
        device = DeviceInfo(name: description.name, kind: .replay, path: path)
        recorded = events
        lastRecordedTime = events.map(\.time).max() ?? .zero
        pipeline = DevicePipeline(description, settings: configuration.settings(for: description, paths: []))
        timeline = ReplayTimeline(firstRecordedTime: events.first?.time ?? .zero, speed: speed, now: now)
        self.loops = loops
    }

    public var nextDeadline: Timestamp? {
        let timer = pipelineDeadline
        switch phase {
        case .playing:
            guard index < recorded.count else { return timeline.start }
            let event = timeline.pipelineTime(recorded: recorded[index].time)
            return timeline.monotonic(min(event, timer ?? .distantFuture))
        case .draining:
            return timer.map(timeline.monotonic) ?? timeline.start
        }
    }

    public func readAvailable(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        .active
    }

    /// The pipeline's next timer (read in place, not copied: `DevicePipeline.nextDeadline(of:)`).
    private var pipelineDeadline: Timestamp? { DevicePipeline.nextDeadline(of: &pipeline) }

    /// Plays what is due at `now`. Due is decided on the monotonic clock (the one
    /// `nextDeadline` is given on), so a deadline that came is always played, whatever the
    /// rounding between the two time scales.
    public func deadlineReached(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        var steps = 0
        while steps < Self.maximumStepsPerDispatch {
            steps += 1
            switch phase {
            case .playing:
                guard index < recorded.count else {
                    let endTime = timeline.pipelineTime(recorded: lastRecordedTime)
                    pipeline.cancelContacts(at: endTime, into: &sink)
                    phase = .draining(endTime: endTime, timersLeft: DevicePipeline.maximumTimersAtFinish)
                    continue
                }
                var event = recorded[index]
                event.time = timeline.pipelineTime(recorded: event.time)
                if timeline.monotonic(event.time) <= now {
                    // As `Replayer`: the timers due up to an event fire just before it.
                    if let deadline = pipelineDeadline, deadline <= event.time {
                        pipeline.advance(to: event.time, into: &sink)
                    }
                    pipeline.feed(event, into: &sink)
                    index += 1
                } else if let deadline = pipelineDeadline, timeline.monotonic(deadline) <= now {
                    pipeline.advance(to: deadline, into: &sink)
                } else {
                    return .active
                }
            case .draining(let endTime, let timersLeft):
                if let deadline = pipelineDeadline, timersLeft > 0 {
                    guard timeline.monotonic(deadline) <= now else { return .active }
                    pipeline.advance(to: deadline, into: &sink)
                    phase = .draining(endTime: endTime, timersLeft: timersLeft - 1)
                    continue
                }
                pipeline.cancelAll(at: endTime, into: &sink)
                guard loops, !recorded.isEmpty else { return .finished(reason: "end of recording") }
                // The next pass starts just after everything this one did.
                timeline.startPass(after: max(endTime, timeline.playing(now)))
                index = 0
                phase = .playing
                return .active
            }
        }
        return .active
    }

    public func reconfigure(_ configuration: Configuration, now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        pipeline.cancelAll(at: timeline.playing(now), into: &sink)
        pipeline = DevicePipeline(description, settings: configuration.settings(for: description, paths: []), replacing: pipeline)
        return .active
    }

    public func close(now: Timestamp, into sink: inout DaemonSink) {
        pipeline.cancelAll(at: timeline.playing(now), into: &sink)
    }
}
