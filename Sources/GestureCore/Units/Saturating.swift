/// Saturating integer arithmetic for microsecond clocks outside the engine (the daemon's
/// event loop and replay timeline); the engine itself uses `Timestamp` and `TimeSpan`.
extension UInt64 {
    /// The integer part of `value`, clamped to `0...UInt64.max` (NaN gives 0) instead of trapping.
    public init(clamping value: Double) {
        // 2^64 is exactly representable; every double below it converts.
        if value >= 18_446_744_073_709_551_616.0 {
            self = .max
        } else if value > 0 {
            self = UInt64(value)
        } else {
            self = 0
        }
    }

    /// Addition that stops at `UInt64.max` instead of trapping.
    public func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    /// Subtraction that stops at 0 instead of trapping.
    public func saturatingSubtract(_ other: UInt64) -> UInt64 {
        self > other ? self - other : 0
    }
}
