import CSystemd
import GestureCore
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The calibration the system gives a device: udev's `LIBINPUT_CALIBRATION_MATRIX`
/// property (set by a hwdb entry or a rule; what libinput applies), read through sd-device.
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

/// What udev's database says about a device node: the properties its rules and hwdb gave it
/// (`ID_INPUT_TOUCHSCREEN`, `ID_INPUT_MOUSE`, `LIBINPUT_CALIBRATION_MATRIX`, …), read through
/// sd-device: what a compositor's libinput sees of the device.
public enum UdevDatabase {
    /// Every property of `devnode`; empty without a udev database (a container, a system
    /// without udev) or for a node udev has not processed.
    public static func properties(devnode: String) -> [String: String] {
        var device: OpaquePointer?
        guard sd_device_new_from_devname(&device, devnode) >= 0, let device else { return [:] }
        defer { sd_device_unref(device) }
        var properties: [String: String] = [:]
        var value: UnsafePointer<CChar>?
        var key = sd_device_get_property_first(device, &value)
        while let name = key {
            properties[String(cString: name)] = value.map { String(cString: $0) } ?? ""
            key = sd_device_get_property_next(device, &value)
        }
        return properties
    }
}
