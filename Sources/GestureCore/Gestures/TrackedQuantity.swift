/// A quantity whose rate of change `VelocityTracker` estimates: it adds, subtracts and
/// scales (a drag's translation, a pinch's scale, a rotation's degrees).
protocol TrackedQuantity {
    static var zero: Self { get }
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, factor: Double) -> Self
    static func / (a: Self, divisor: Double) -> Self
}

extension Double: TrackedQuantity {}
