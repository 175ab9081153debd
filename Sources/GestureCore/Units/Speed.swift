/// A speed on the touch surface, in millimetres per second (the swipe's minimum velocity).
public struct Speed: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var millimetresPerSecond: Double

    @inlinable
    public init(millimetresPerSecond: Double) {
        self.millimetresPerSecond = millimetresPerSecond
    }

    @inlinable
    public static func millimetresPerSecond(_ value: Double) -> Speed { Speed(millimetresPerSecond: value) }

    @inlinable public static var zero: Speed { Speed(millimetresPerSecond: 0) }

    @inlinable
    public static func == (a: Speed, b: Speed) -> Bool { a.millimetresPerSecond == b.millimetresPerSecond }

    @inlinable
    public static func < (a: Speed, b: Speed) -> Bool { a.millimetresPerSecond < b.millimetresPerSecond }

    /// `250.0 mm/s`.
    public var description: String { "\(millimetresPerSecond) mm/s" }
}

/// A velocity on the touch surface: millimetres per second along the screen's x and y axes.
public struct SurfaceVelocity: Sendable, Hashable {
    public var x: Speed
    public var y: Speed

    @inlinable
    public init(x: Speed, y: Speed) {
        self.x = x
        self.y = y
    }

    /// The velocity that covers `displacement` in one second.
    @inlinable
    public init(perSecond displacement: SurfacePoint) {
        x = Speed(millimetresPerSecond: displacement.x.millimetres)
        y = Speed(millimetresPerSecond: displacement.y.millimetres)
    }

    @inlinable public static var zero: SurfaceVelocity { SurfaceVelocity(x: .zero, y: .zero) }

    @inlinable
    public static func == (a: SurfaceVelocity, b: SurfaceVelocity) -> Bool { a.x == b.x && a.y == b.y }

    /// The speed whatever the direction (the Euclidean length).
    @inlinable
    public var speed: Speed {
        Speed(
            millimetresPerSecond: (x.millimetresPerSecond * x.millimetresPerSecond + y.millimetresPerSecond * y.millimetresPerSecond)
                .squareRoot())
    }
}
