/// A moment on the monotonic clock (`CLOCK_MONOTONIC`), in microseconds: the kernel
/// timestamp of an input event, a timer's deadline, the `time` of every event line. A
/// recording carries its own clock's moments. Only a `TimeSpan` can be added to it, and the
/// difference of two moments is a `TimeSpan`: microseconds cannot be mixed up with
/// milliseconds, or a moment with a length of time.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since the clock's origin (boot, for `CLOCK_MONOTONIC`).
    public var microseconds: UInt64

    @inlinable
    public init(microseconds: UInt64) {
        self.microseconds = microseconds
    }

    // Constants are inlinable computed properties, not stored `static let`s: a stored one
    // is reached through a lazy-initialisation call from other modules, and that opaque
    // call in the engine's per-event deadline loop made the optimiser copy every region's
    // recognizers around it (docs/performance.md).

    /// The clock's origin.
    @inlinable public static var zero: Timestamp { Timestamp(microseconds: 0) }
    /// The latest representable moment ("never").
    @inlinable public static var distantFuture: Timestamp { Timestamp(microseconds: .max) }

    @inlinable
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.microseconds == b.microseconds }

    @inlinable
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    /// `moment + span`, stopping at `distantFuture` instead of trapping.
    @inlinable
    public static func + (moment: Timestamp, span: TimeSpan) -> Timestamp {
        let (sum, overflow) = moment.microseconds.addingReportingOverflow(span.microseconds)
        return Timestamp(microseconds: overflow ? .max : sum)
    }

    /// `moment − span`, stopping at the origin instead of trapping.
    @inlinable
    public static func - (moment: Timestamp, span: TimeSpan) -> Timestamp {
        Timestamp(microseconds: moment.microseconds > span.microseconds ? moment.microseconds - span.microseconds : 0)
    }

    /// The time from `earlier` to `later`; zero when `earlier` is not earlier.
    @inlinable
    public static func - (later: Timestamp, earlier: Timestamp) -> TimeSpan {
        TimeSpan(microseconds: later.microseconds > earlier.microseconds ? later.microseconds - earlier.microseconds : 0)
    }

    /// `12345 µs`.
    public var description: String { "\(microseconds) µs" }
}

/// A length of time, in whole microseconds, never negative: a configured duration (long
/// press, multi-tap interval), the time between two moments.
public struct TimeSpan: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var microseconds: UInt64

    @inlinable
    public init(microseconds: UInt64) {
        self.microseconds = microseconds
    }

    @inlinable public static var zero: TimeSpan { TimeSpan(microseconds: 0) }
    /// Longer than anything ("forever").
    @inlinable public static var infinite: TimeSpan { TimeSpan(microseconds: .max) }

    @inlinable
    public static func == (a: TimeSpan, b: TimeSpan) -> Bool { a.microseconds == b.microseconds }

    @inlinable
    public static func microseconds(_ value: UInt64) -> TimeSpan { TimeSpan(microseconds: value) }

    /// `value` milliseconds, rounded to the microsecond; negative or NaN gives zero,
    /// anything beyond `UInt64.max` µs (infinity) gives `infinite`.
    public static func milliseconds(_ value: Double) -> TimeSpan { rounded(microseconds: value * 1_000) }

    /// `value` seconds, rounded to the microsecond; negative or NaN gives zero, anything
    /// beyond `UInt64.max` µs (infinity) gives `infinite`.
    public static func seconds(_ value: Double) -> TimeSpan { rounded(microseconds: value * 1_000_000) }

    /// A Swift `Duration`, truncated to the microsecond; negative gives zero, beyond
    /// `UInt64.max` µs gives `infinite`.
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else {
            self = .zero
            return
        }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        self = overflow ? .infinite : .microseconds(whole) + .microseconds(UInt64(attoseconds / 1_000_000_000_000))
    }

    private static func rounded(microseconds value: Double) -> TimeSpan {
        let micros = value.rounded()
        // 2^64 is exactly representable; every double below it converts.
        if micros >= 18_446_744_073_709_551_616.0 { return .infinite }
        return TimeSpan(microseconds: micros > 0 ? UInt64(micros) : 0)
    }

    /// In seconds (for rates: per second).
    @inlinable
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// In milliseconds (for showing configured values).
    public var milliseconds: Double { Double(microseconds) / 1_000 }

    @inlinable
    public static func < (a: TimeSpan, b: TimeSpan) -> Bool { a.microseconds < b.microseconds }

    /// `a + b`, stopping at `infinite` instead of trapping.
    @inlinable
    public static func + (a: TimeSpan, b: TimeSpan) -> TimeSpan {
        let (sum, overflow) = a.microseconds.addingReportingOverflow(b.microseconds)
        return TimeSpan(microseconds: overflow ? .max : sum)
    }

    /// `12345 µs`.
    public var description: String { "\(microseconds) µs" }
}
