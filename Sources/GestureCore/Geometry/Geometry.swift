import GestureProtocol

/// Vector arithmetic on normalised screen points (the protocol's `Point`).
extension Point {
    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }
    public static func / (a: Point, s: Double) -> Point { Point(x: a.x / s, y: a.y / s) }

    /// Euclidean length of the vector.
    public var length: Double { (x * x + y * y).squareRoot() }

    /// Euclidean distance to `other`.
    public func distance(to other: Point) -> Double { (self - other).length }
}

/// An axis-aligned rectangle; for regions, in normalised screen space (0…1, origin top-left).
public struct Rect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole normalised screen.
    public static let unit = Rect(x: 0, y: 0, width: 1, height: 1)

    /// Whether `point` lies inside (edges inclusive).
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x <= x + width && point.y >= y && point.y <= y + height
    }

    /// Whether `other` lies entirely inside this rectangle.
    public func contains(_ other: Rect) -> Bool {
        other.x >= x && other.y >= y && other.x + other.width <= x + width && other.y + other.height <= y + height
    }

    public var area: Double { width * height }

    /// `point` (normalised screen space) relative to this rectangle: 0…1 from its top-left
    /// corner across its width and height (outside 0…1 when the point lies outside).
    public func local(_ point: Point) -> Point {
        Point(x: width > 0 ? (point.x - x) / width : 0, y: height > 0 ? (point.y - y) / height : 0)
    }
}
