import EvdevInput
import GestureCore
import Logging
import Recordings

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
    public var fileDescriptor: Int32? { nil }
    private let description: DeviceDescription
    private let recorded: [InputEvent]
    /// The latest recorded time (recordings are not always in order).
    private let lastRecordedTime: UInt64
    private var pipeline: DevicePipeline
    private let speed: Double
    private let loops: Bool
    /// Monotonic time at which playback started.
    private let start: UInt64
    /// Added to recorded times for the current pass (pipeline time = recorded + offset).
    private var offset: UInt64
    private var index = 0
    private var phase = Phase.playing

    private enum Phase {
        /// Feeding events (and the timers due between them).
        case playing
        /// The pass's events are in; the remaining timers fire at their deadlines.
        case draining(endTime: UInt64, timersLeft: Int)
    }

    public init(description: DeviceDescription, events: [InputEvent], path: String?, configuration: Configuration,
                speed: Double = 1, loops: Bool = false, now: UInt64) {
        precondition(speed > 0 && speed.isFinite, "speed must be positive")
        self.description = description
        device = DeviceInfo(name: description.name, kind: .replay, path: path)
        recorded = events
        lastRecordedTime = events.map(\.time).max() ?? 0
        pipeline = DevicePipeline(description, settings: configuration.settings(for: description, paths: []))
        self.speed = speed
        self.loops = loops
        start = now
        offset = now &- (events.first?.time ?? 0)
    }

    /// The monotonic time at which pipeline time `t` plays.
    private func monotonic(_ t: UInt64) -> UInt64 {
        t <= start ? start : start + UInt64((Double(t - start) / speed).rounded(.up))
    }

    /// The pipeline time playing at monotonic `now`.
    private func playing(_ now: UInt64) -> UInt64 {
        now <= start ? start : start + UInt64(Double(now - start) * speed)
    }

    public var nextDeadline: UInt64? {
        let timer = pipeline.nextDeadline
        switch phase {
        case .playing:
            guard index < recorded.count else { return start }
            let event = recorded[index].time &+ offset
            return monotonic(min(event, timer ?? .max))
        case .draining:
            return timer.map(monotonic) ?? start
        }
    }

    public func readAvailable(now: UInt64, into sink: inout DaemonSink) -> InputStatus {
        .active
    }

    public func deadlineReached(now: UInt64, into sink: inout DaemonSink) -> InputStatus {
        let playing = playing(now)
        while true {
            switch phase {
            case .playing:
                guard index < recorded.count else {
                    let endTime = lastRecordedTime &+ offset
                    pipeline.cancelContacts(at: endTime, into: &sink)
                    phase = .draining(endTime: endTime, timersLeft: DevicePipeline.maximumTimersAtFinish)
                    continue
                }
                var event = recorded[index]
                event.time &+= offset
                if event.time <= playing {
                    // As `Replayer`: the timers due up to an event fire just before it.
                    if let deadline = pipeline.nextDeadline, deadline <= event.time {
                        pipeline.advance(to: event.time, into: &sink)
                    }
                    pipeline.feed(event, touchesInto: &sink)
                    index += 1
                } else if let deadline = pipeline.nextDeadline, deadline <= playing {
                    pipeline.advance(to: deadline, into: &sink)
                } else {
                    return .active
                }
            case .draining(let endTime, let timersLeft):
                if let deadline = pipeline.nextDeadline, timersLeft > 0 {
                    guard deadline <= playing else { return .active }
                    pipeline.advance(to: deadline, into: &sink)
                    phase = .draining(endTime: endTime, timersLeft: timersLeft - 1)
                    continue
                }
                pipeline.cancelAll(at: endTime, into: &sink)
                guard loops, let first = recorded.first else { return .finished(reason: "end of recording") }
                // The next pass starts just after everything this one did.
                let passEnd = max(endTime, playing)
                offset = passEnd + 1 - first.time
                index = 0
                phase = .playing
                return .active
            }
        }
    }

    public func reconfigure(_ configuration: Configuration, now: UInt64, into sink: inout DaemonSink) -> InputStatus {
        pipeline.cancelAll(at: playing(now), into: &sink)
        pipeline = DevicePipeline(description, settings: configuration.settings(for: description, paths: []))
        return .active
    }

    public func close(now: UInt64, into sink: inout DaemonSink) {
        pipeline.cancelAll(at: playing(now), into: &sink)
    }
}

/// Plays recordings one after another through `ReplaySource`s (`gestured run --replay`):
/// each is announced as a device when it starts and removed when it ends; with `loops`, a
/// single recording loops seamlessly and several start over from the first.
public final class ReplayPlaylist {
    private let daemon: Daemon
    private let recordings: [Recording]
    private let speed: Double
    private let loops: Bool
    private var logger: Logger
    private var next = 0
    private var current: ReplaySource?

    public init(daemon: Daemon, recordings: [Recording], speed: Double, loops: Bool, logger: Logger) {
        self.daemon = daemon
        self.recordings = recordings
        self.speed = speed
        self.loops = loops
        self.logger = logger
        daemon.sourceRemoved = { [unowned self] source in
            guard source === current else { return }
            current = nil
            playNext()
        }
    }

    /// Starts the first recording.
    public func start() {
        playNext()
    }

    private func playNext() {
        guard !daemon.isStopping else { return }
        if next == recordings.count {
            guard loops, recordings.count > 1 else {
                logger.info("replay finished")
                return
            }
            next = 0
        }
        let recording = recordings[next]
        next += 1
        let source = ReplaySource(
            description: recording.device, events: recording.events, path: recording.path,
            configuration: daemon.configuration, speed: speed, loops: loops && recordings.count == 1, now: daemon.loop.now)
        current = source
        do {
            try daemon.add(source)
        } catch {
            logger.error("cannot replay", metadata: ["recording": "\(recording.path)", "error": "\(error)"])
        }
    }
}
