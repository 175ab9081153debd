import GestureCore
import Logging
import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// The calibration the system gives a device: udev's `LIBINPUT_CALIBRATION_MATRIX`
/// property (set by a hwdb entry or a rule; what libinput applies), read through
/// sd-device (`UdevDatabase`).
public enum SystemCalibration {
    /// What udev says about one device node.
    public enum Lookup: Sendable, Hashable {
        /// No property (or no udev database: a container, a system without udev).
        case none
        case matrix([Double])
        /// The property is there but unusable; `problem` says why (the device then uses
        /// the identity, and the daemon logs it).
        case invalid(value: String, problem: String)

        /// The matrix to apply, if any.
        public var matrix: [Double]? {
            if case .matrix(let matrix) = self { matrix } else { nil }
        }
    }

    /// The udev property that carries the matrix.
    public static let property = "LIBINPUT_CALIBRATION_MATRIX"

    /// Looks the property up for the device node `devnode` (e.g. `/dev/input/event5`).
    public static func lookup(devnode: String) -> Lookup {
        lookup(in: UdevDatabase.properties(devnode: devnode))
    }

    /// The property among a node's udev properties (`UdevDatabase.properties`).
    public static func lookup(in properties: [String: String]) -> Lookup {
        guard let text = properties[property] else { return .none }
        guard let matrix = DeviceGeometry.parseCalibrationProperty(text) else {
            return .invalid(value: text, problem: "is not six numbers")
        }
        if let problem = DeviceGeometry.calibrationProblem(matrix) {
            return .invalid(value: text, problem: problem)
        }
        return .matrix(matrix)
    }

    /// The matrix to offer the configuration for `devnode`; an unusable property is logged.
    static func matrix(devnode: String, device: String, logger: Logger) -> [Double]? {
        let found = lookup(devnode: devnode)
        if case .invalid(let value, let problem) = found {
            logger.warning(
                "ignoring udev's \(property): it \(problem)", metadata: ["device": "\(device)", "node": "\(devnode)", "value": "\(value)"])
        }
        return found.matrix
    }
}
