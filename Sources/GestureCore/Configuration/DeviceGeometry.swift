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

/// Where a device's calibration matrix comes from (`gestured devices` says which).
public enum CalibrationSource: String, Sendable, Hashable {
    /// Neither the configuration nor udev gives one: identity.
    case builtIn = "default"
    /// `calibration` in `[geometry]` or the device's `[[device]]` entry.
    case configuration
    /// udev's `LIBINPUT_CALIBRATION_MATRIX` property of the device (what libinput applies).
    case udev
}

/// How device coordinates map to the screen and to millimetres.
public struct DeviceGeometry: Sendable, Hashable {
    public var rotation: Rotation = .none
    /// libinput's calibration matrix `[a, b, c, d, e, f]`, applied to normalised device
    /// coordinates: x' = a·x + b·y + c, y' = d·x + e·y + f. Identity by default.
    public var calibration: [Double] = DeviceGeometry.identityCalibration
    /// Where `calibration` comes from.
    public var calibrationSource: CalibrationSource = .builtIn
    /// Overrides the size derived from the axis resolution (required for sane thresholds
    /// when the device reports resolution 0).
    public var physicalSize: PhysicalSize? = nil

    public init(
        rotation: Rotation = .none, calibration: [Double] = DeviceGeometry.identityCalibration,
        calibrationSource: CalibrationSource = .builtIn, physicalSize: PhysicalSize? = nil
    ) {
        self.rotation = rotation
        self.calibration = calibration
        self.calibrationSource = calibrationSource
        self.physicalSize = physicalSize
    }

    public static let identityCalibration: [Double] = [1, 0, 0, 0, 1, 0]

    /// The largest magnitude of a calibration matrix entry (a panel mapped onto a tenth of
    /// a ten-screen wall needs 0.1 and 0.9; nothing sensible comes near 10).
    public static let maximumCalibrationValue = 10.0
    /// The smallest |a·e − b·d|: the area the calibrated panel covers, as a fraction of the
    /// screen. Zero maps every touch onto one line or point.
    public static let minimumCalibrationDeterminant = 0.001

    /// Why `matrix` (6 numbers) cannot be a calibration, in words after "calibration …";
    /// nil when it can. The configuration and udev's property are held to the same rule.
    public static func calibrationProblem(_ matrix: [Double]) -> String? {
        guard matrix.count == 6, matrix.allSatisfy(\.isFinite) else {
            return "must be 6 finite numbers [a, b, c, d, e, f]"
        }
        guard matrix.allSatisfy({ abs($0) <= maximumCalibrationValue }) else {
            return "values must be between -\(Int(maximumCalibrationValue)) and \(Int(maximumCalibrationValue))"
        }
        let determinant = matrix[0] * matrix[4] - matrix[1] * matrix[3]
        guard abs(determinant) >= minimumCalibrationDeterminant else {
            return
                "flattens the panel: a·e − b·d = \(shortNumber(determinant)) (it must be at least \(minimumCalibrationDeterminant) in size, or every touch lands on one line)"
        }
        return nil
    }

    /// `1`, `0.5`, `-0.125`: a matrix entry as short as it reads.
    public static func shortNumber(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }

    /// udev's `LIBINPUT_CALIBRATION_MATRIX` value (six numbers separated by spaces, as
    /// libinput reads it) as a matrix; nil when it is not six numbers.
    public static func parseCalibrationProperty(_ text: String) -> [Double]? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { Double($0) }
        guard numbers.count == 6, numbers.allSatisfy({ $0 != nil }) else { return nil }
        return numbers.compactMap { $0 }
    }

    /// This geometry with the system's (udev's) calibration when the configuration gives
    /// none; unchanged when it does (the configuration wins) or `system` is nil.
    public func withSystemCalibration(_ system: [Double]?) -> DeviceGeometry {
        guard let system, calibrationSource != .configuration else { return self }
        var geometry = self
        geometry.calibration = system
        geometry.calibrationSource = .udev
        return geometry
    }
}
