import CSystemCalls
import CUdev
import EvdevInput
import Glibc
import SystemCalls
import SystemPackage

/// What udev's database says about a device node: the properties its rules and hwdb gave it
/// (`ID_INPUT_TOUCHSCREEN`, `ID_INPUT_MOUSE`, `LIBINPUT_CALIBRATION_MATRIX`, …), read through
/// libudev: what a compositor's libinput sees of the device.
public enum UdevDatabase {
    /// Every property of `devnode`; empty without a udev database (a container, a system
    /// without udev), for a node udev has not processed, or for what is not a character device.
    public static func properties(devnode: String) -> [String: String] {
        guard let number = RegularFile.characterDeviceNumber(path: devnode), let context = udev_new() else { return [:] }
        defer { udev_unref(context) }
        guard let device = udev_device_new_from_devnum(context, CChar(UInt8(ascii: "c")), dev_t(number)) else { return [:] }
        defer { udev_device_unref(device) }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                properties[String(cString: name)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        return properties
    }
}
