/// A distance on the touch surface, in millimetres: a finger's travel, a threshold
/// (tap slop, drag minimum distance), a margin. Only lengths add to and compare with
/// lengths, so millimetres cannot be mixed up with normalised screen units, a speed or an
/// angle. (Constants are inlinable computed properties, as `Timestamp.zero` explains.)
public struct Length: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var millimetres: Double

    @inlinable
    public init(millimetres: Double) {
        self.millimetres = millimetres
    }

    @inlinable
    public static func millimetres(_ value: Double) -> Length { Length(millimetres: value) }

    @inlinable public static var zero: Length { Length(millimetres: 0) }

    @inlinable
    public static func == (a: Length, b: Length) -> Bool { a.millimetres == b.millimetres }

    @inlinable
    public static func < (a: Length, b: Length) -> Bool { a.millimetres < b.millimetres }

    // The other comparisons as Double's (IEEE: false with NaN), not Comparable's defaults
    // (`!(b < a)`, true with NaN), so that lengths compare exactly as the numbers did.
    @inlinable
    public static func <= (a: Length, b: Length) -> Bool { a.millimetres <= b.millimetres }

    @inlinable
    public static func > (a: Length, b: Length) -> Bool { a.millimetres > b.millimetres }

    @inlinable
    public static func >= (a: Length, b: Length) -> Bool { a.millimetres >= b.millimetres }

    @inlinable
    public static func + (a: Length, b: Length) -> Length { Length(millimetres: a.millimetres + b.millimetres) }

    @inlinable
    public static func - (a: Length, b: Length) -> Length { Length(millimetres: a.millimetres - b.millimetres) }

    @inlinable
    public static func * (a: Length, factor: Double) -> Length { Length(millimetres: a.millimetres * factor) }

    @inlinable
    public static func / (a: Length, divisor: Double) -> Length { Length(millimetres: a.millimetres / divisor) }

    /// The ratio of two lengths (a scale).
    @inlinable
    public static func / (a: Length, b: Length) -> Double { a.millimetres / b.millimetres }

    /// The length without its sign.
    @inlinable
    public var magnitude: Length { Length(millimetres: abs(millimetres)) }

    /// `12.5 mm`.
    public var description: String { "\(millimetres) mm" }
}

/// A point on the touch surface, or a vector between two such points, in millimetres from
/// the surface's top-left corner in screen orientation (rotation applied, calibration not).
/// Distinct from `Point`, the normalised 0…1 screen space: thresholds in millimetres apply
/// only to these.
public struct SurfacePoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Length
    public var y: Length

    @inlinable
    public init(x: Length, y: Length) {
        self.x = x
        self.y = y
    }

    /// The point `x` mm right of and `y` mm below the surface's top-left corner.
    @inlinable
    public init(millimetresX x: Double, y: Double) {
        self.x = Length(millimetres: x)
        self.y = Length(millimetres: y)
    }

    @inlinable public static var zero: SurfacePoint { SurfacePoint(x: .zero, y: .zero) }

    @inlinable
    public static func == (a: SurfacePoint, b: SurfacePoint) -> Bool { a.x == b.x && a.y == b.y }

    @inlinable
    public static func + (a: SurfacePoint, b: SurfacePoint) -> SurfacePoint { SurfacePoint(x: a.x + b.x, y: a.y + b.y) }

    @inlinable
    public static func - (a: SurfacePoint, b: SurfacePoint) -> SurfacePoint { SurfacePoint(x: a.x - b.x, y: a.y - b.y) }

    @inlinable
    public static func * (a: SurfacePoint, factor: Double) -> SurfacePoint { SurfacePoint(x: a.x * factor, y: a.y * factor) }

    @inlinable
    public static func / (a: SurfacePoint, divisor: Double) -> SurfacePoint { SurfacePoint(x: a.x / divisor, y: a.y / divisor) }

    /// Euclidean length of the vector.
    @inlinable
    public var length: Length {
        Length(millimetres: (x.millimetres * x.millimetres + y.millimetres * y.millimetres).squareRoot())
    }

    /// Euclidean distance to `other`.
    @inlinable
    public func distance(to other: SurfacePoint) -> Length { (self - other).length }

    /// `(12.5 mm, 3.0 mm)`.
    public var description: String { "(\(x), \(y))" }
}
