import CSystemd
import Glibc
import SystemCalls
import SystemPackage

/// What udev's database says about a device node: the properties its rules and hwdb gave it
/// (`ID_INPUT_TOUCHSCREEN`, `ID_INPUT_MOUSE`, `LIBINPUT_CALIBRATION_MATRIX`, …), read through
/// libsystemd's sd-device (`/sys` and `/run/udev/data`): what a compositor's libinput sees of
/// the device.
public enum UdevDatabase {
    /// Every property of `devnode`; empty without a udev database (a container, a system
    /// without udev), for a node udev has not processed, or for what is not a character device.
    public static func properties(devnode: String) -> [String: String] {
        guard let number = RegularFile.characterDeviceNumber(path: devnode) else { return [:] }
        var made: OpaquePointer?
        guard sd_device_new_from_devnum(&made, CChar(UInt8(ascii: "c")), dev_t(number)) >= 0, let device = made else { return [:] }
        defer { sd_device_unref(device) }
        var properties: [String: String] = [:]
        var value: UnsafePointer<CChar>?
        var name = sd_device_get_property_first(device, &value)
        while let current = name {
            properties[String(cString: current)] = value.map { String(cString: $0) } ?? ""
            name = sd_device_get_property_next(device, &value)
        }
        return properties
    }
}
