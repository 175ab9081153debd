import GestureCore
import GestureProtocol
import SystemPackage

/// The clocks of `run --replay`: recorded time, pipeline time (what the engine and the
/// wire see: the recording's times shifted so that the first event of the first pass is
/// the moment playback started) and the loop's monotonic time (pipeline time elapsed since
/// the start, divided by the speed).
///
/// Every conversion saturates instead of trapping, for any recorded time (a first event
/// at 10^9 s, times going backwards, `Timestamp.distantFuture`) and any speed in
/// `speedRange`: a time too large for the clock plays at `distantFuture`, never; one before
/// the start plays at once.
public struct ReplayTimeline: Sendable, Equatable {
    /// The speeds `gestured run --replay --speed` accepts (docs/protocol.md).
    public static let speedRange: ClosedRange<Double> = 0.01...1000

    /// Monotonic (and pipeline) time at which playback started.
    public let start: Timestamp
    public let speed: Double
    /// The recorded time of the first event: it plays at `passStart`.
    private let firstRecordedTime: Timestamp
    /// Pipeline time of the current pass's first event.
    public private(set) var passStart: Timestamp

    public init(firstRecordedTime: Timestamp, speed: Double, now: Timestamp) {
        precondition(Self.speedRange.contains(speed), "speed \(speed) outside \(Self.speedRange)")
        start = now
        self.speed = speed
        self.firstRecordedTime = firstRecordedTime
        passStart = now
    }

    /// The pipeline time of recorded time `t` in the current pass.
    public func pipelineTime(recorded t: Timestamp) -> Timestamp {
        // Spelled out: inside a ternary, Swift 6.2 picks another `-` overload than 6.3 does.
        if t >= firstRecordedTime {
            let sinceFirst: TimeSpan = t - firstRecordedTime
            return passStart + sinceFirst
        }
        let beforeFirst: TimeSpan = firstRecordedTime - t
        return passStart - beforeFirst
    }

    /// The monotonic time at which pipeline time `t` plays (rounded up: never early).
    public func monotonic(_ t: Timestamp) -> Timestamp {
        guard t > start else { return start }
        return start + .microseconds(UInt64(clamping: (Double((t - start).microseconds) / speed).rounded(.up)))
    }

    /// The pipeline time playing at monotonic `now`.
    public func playing(_ now: Timestamp) -> Timestamp {
        guard now > start else { return start }
        return start + .microseconds(UInt64(clamping: Double((now - start).microseconds) * speed))
    }

    /// Starts the next pass just after pipeline time `end`.
    public mutating func startPass(after end: Timestamp) {
        passStart = end + .microseconds(1)
    }
}
