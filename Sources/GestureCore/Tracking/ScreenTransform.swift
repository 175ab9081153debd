import GestureProtocol

/// Where a point of the panel is on the screen: libinput's calibration matrix on normalised
/// device coordinates, then the panel's rotation. The one copy of this math: the tracker's
/// coordinates (`CoordinateMapper`) and a screen-oriented pass-through clone
/// (`ScreenOrientedClone`) both go through it, so the clone shows a touch exactly where the
/// daemon's regions see it.
public struct ScreenTransform: Sendable, Hashable {
    /// Clockwise rotation of the panel relative to the screen.
    public let rotation: Rotation
    private let a, b, c, d, e, f: Double

    /// The transform `geometry` describes; a calibration that is not 6 finite numbers
    /// counts as the identity (the configuration and udev's property are checked before).
    public init(_ geometry: DeviceGeometry) {
        let matrix = geometry.calibration
        let usable = matrix.count == 6 && matrix.allSatisfy { $0.isFinite }
        let m = usable ? matrix : DeviceGeometry.identityCalibration
        (a, b, c, d, e, f) = (m[0], m[1], m[2], m[3], m[4], m[5])
        rotation = geometry.rotation
    }

    /// Whether it maps every point onto itself (identity calibration, no rotation).
    public var isIdentity: Bool {
        rotation == .none && (a, b, c, d, e, f) == (1, 0, 0, 0, 1, 0)
    }

    /// The screen position (0…1, origin top-left) of the normalised device position
    /// (`u`, `v`) (0…1 along the device's own axes). Never NaN or infinite: a non-finite
    /// result becomes 0.
    @inline(__always)
    public func screenPoint(u: Double, v: Double) -> Point {
        let calibratedX = a * u + b * v + c
        let calibratedY = d * u + e * v + f
        let screen = Self.rotate(x: calibratedX, y: calibratedY, width: 1, height: 1, by: rotation)
        return Point(x: screen.x.isFinite ? screen.x : 0, y: screen.y.isFinite ? screen.y : 0)
    }

    /// Maps a point of a panel `width` × `height` (device orientation) to the screen.
    /// The panel is mounted rotated clockwise by `rotation`: at 90°, the device's top-left
    /// corner is the screen's top-right corner and the device's x axis points down the screen.
    @inline(__always)
    static func rotate(x: Double, y: Double, width: Double, height: Double, by rotation: Rotation) -> Point {
        switch rotation {
        case .none: Point(x: x, y: y)
        case .quarter: Point(x: height - y, y: x)
        case .half: Point(x: width - x, y: height - y)
        case .threeQuarters: Point(x: y, y: width - x)
        }
    }
}

extension Rotation {
    /// Whether the panel is turned by a quarter (90° or 270°): its x axis runs along the
    /// screen's y axis.
    public var isQuarterTurn: Bool { self == .quarter || self == .threeQuarters }
}
