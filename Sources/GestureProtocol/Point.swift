/// A point (or a vector between two points) in normalised screen space: 0…1 across the
/// screen, origin top-left, in screen orientation (`location` and the other point fields of
/// docs/protocol.md). Values may fall slightly outside 0…1 on uncalibrated panels; vectors
/// (`translation`, `velocity`) are differences of such points.
public struct Point: Sendable, Hashable {
    public var x: Double
    public var y: Double

    @inlinable
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin (an inlinable constant: see `Timestamp.zero`).
    @inlinable public static var zero: Point { Point(x: 0, y: 0) }

    @inlinable
    public static func == (a: Point, b: Point) -> Bool { a.x == b.x && a.y == b.y }
}
