/// A clamping conversion for scaled microsecond counts (the replay timeline's speed);
/// moments and lengths of time themselves are `Timestamp` and `TimeSpan`.
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
}
