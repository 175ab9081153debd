/// An angle, held in degrees (the unit of the rotate gesture's `degrees` and of its
/// configured minimum angle); made from radians where trigonometry gives them.
public struct Angle: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var degrees: Double

    @inlinable
    public init(degrees: Double) {
        self.degrees = degrees
    }

    @inlinable
    public static func degrees(_ value: Double) -> Angle { Angle(degrees: value) }

    /// `value` radians.
    @inlinable
    public static func radians(_ value: Double) -> Angle { Angle(degrees: value * (180 / 3.141592653589793)) }

    @inlinable public static var zero: Angle { Angle(degrees: 0) }

    @inlinable
    public static func == (a: Angle, b: Angle) -> Bool { a.degrees == b.degrees }

    @inlinable
    public static func < (a: Angle, b: Angle) -> Bool { a.degrees < b.degrees }

    @inlinable
    public static func + (a: Angle, b: Angle) -> Angle { Angle(degrees: a.degrees + b.degrees) }

    @inlinable
    public static func / (a: Angle, divisor: Double) -> Angle { Angle(degrees: a.degrees / divisor) }

    /// The angle without its sign.
    @inlinable
    public var magnitude: Angle { Angle(degrees: abs(degrees)) }

    /// `90.0°`.
    public var description: String { "\(degrees)°" }
}
