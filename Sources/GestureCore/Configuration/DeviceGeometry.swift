/// Clockwise rotation of the panel relative to the screen, in degrees.
public enum Rotation: Int, Sendable, Hashable, CaseIterable {
    case none = 0
    case quarter = 90
    case half = 180
    case threeQuarters = 270
}

/// Physical size of a surface in millimetres.
public struct PhysicalSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// How device coordinates map to the screen and to millimetres.
public struct DeviceGeometry: Sendable, Hashable {
    public var rotation: Rotation = .none
    /// libinput's calibration matrix `[a, b, c, d, e, f]`, applied to normalised device
    /// coordinates: x' = a·x + b·y + c, y' = d·x + e·y + f. Identity by default.
    public var calibration: [Double] = [1, 0, 0, 0, 1, 0]
    /// Overrides the size derived from the axis resolution (required for sane thresholds
    /// when the device reports resolution 0).
    public var physicalSize: PhysicalSize? = nil

    public init(rotation: Rotation = .none, calibration: [Double] = [1, 0, 0, 0, 1, 0], physicalSize: PhysicalSize? = nil) {
        self.rotation = rotation
        self.calibration = calibration
        self.physicalSize = physicalSize
    }
}
