import CEvdev
import GestureCore
import Glibc
import SystemCalls
import SystemPackage

/// A kernel input device made through uinput from a `DeviceDescription`: the kernel creates
/// a real `/dev/input/eventN` that anything (gestured included) can open, and delivers what
/// is written here as that device's events. The end-to-end tests make touchscreens with it
/// (GestureTestSupport's `VirtualDevice`); a virtual keyboard or a pass-through clone of a
/// touchscreen would be made the same way. Destroyed (and its node removed) in `deinit`.
/// A device made by an earlier process can be taken over from its descriptor
/// (`init(adopting:)`: a pass-through clone kept in systemd's file descriptor store).
public final class UinputDevice {
    /// The evdev node the kernel created, e.g. `/dev/input/event7`.
    public let devnode: String
    /// libevdev's handle of a device made here; nil for one adopted from its descriptor.
    private let uinput: OpaquePointer?
    /// The `/dev/uinput` descriptor the device lives on.
    private let control: FileDescriptor

    /// The uinput control node libevdev opens.
    public static let uinputPath = "/dev/uinput"

    /// Creates the device. Throws `SystemError` with path `/dev/uinput` when uinput is
    /// missing (`ENOENT`: "this kernel has no uinput") or not accessible (`EACCES`).
    public init(_ description: DeviceDescription) throws(SystemError) {
        guard let template = libevdev_new() else {
            throw SystemError(.noMemory, call: "libevdev_new")
        }
        defer { libevdev_free(template) }
        Self.configure(template, from: description)
        // Opened here rather than by libevdev (LIBEVDEV_UINPUT_OPEN_MANAGED): libevdev does not
        // pass the template's phys on, so it is set on the descriptor before libevdev creates
        // the device on it.
        let control = try SystemCall.adopting("open", path: Self.uinputPath) {
            try FileDescriptor.open(Self.uinputPath, .readWrite, options: [.closeOnExec])
        }
        var created: OpaquePointer?
        do {
            if let phys = description.phys {
                try SystemCall.posixBlocking("ioctl(UI_SET_PHYS)", path: Self.uinputPath) {
                    gestured_uinput_set_phys(control.rawValue, phys)
                }
            }
            _ = try SystemCall.negatedErrnoBlocking("libevdev_uinput_create_from_device", path: Self.uinputPath) {
                libevdev_uinput_create_from_device(template, control.rawValue, &created)
            }
        } catch {
            try? control.close()
            throw error
        }
        guard let created else {
            try? control.close()
            throw SystemError(.noMemory, call: "libevdev_uinput_create_from_device", path: Self.uinputPath)
        }
        guard let node = libevdev_uinput_get_devnode(created) else {
            libevdev_uinput_destroy(created)
            try? control.close()
            throw SystemError(.operationNotSupportedByDevice, call: "libevdev_uinput_get_devnode", path: Self.uinputPath)
        }
        self.uinput = created
        self.control = control
        self.devnode = String(cString: node)
    }

    /// Takes over the device another process made on `descriptor` (a `/dev/uinput`
    /// descriptor it passed on): finds its node through `UI_GET_SYSNAME` and sysfs. The
    /// device is destroyed in `deinit`, as one made here. Throws `SystemError` when the
    /// descriptor holds no device now (`ENOENT`: destroyed, `ENOTTY`: not uinput at all) or
    /// its node cannot be found (`ENOENT`); the descriptor stays the caller's then.
    public init(adopting descriptor: FileDescriptor) throws(SystemError) {
        var name = [CChar](repeating: 0, count: 64)
        try SystemCall.posixBlocking("ioctl(UI_GET_SYSNAME)", path: Self.uinputPath) {
            gestured_uinput_get_sysname(descriptor.rawValue, &name, UInt32(name.count - 1))
        }
        let sysname = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = "/sys/devices/virtual/input/\(sysname)"
        guard let event = try Directory.entryNames(directory).filter({ $0.hasPrefix("event") }).sorted().first else {
            throw SystemError(.noSuchFileOrDirectory, call: "find the evdev node", path: directory)
        }
        devnode = "/dev/input/\(event)"
        uinput = nil
        control = descriptor
    }

    deinit {
        // UI_DEV_DESTROY; the descriptor is ours to close (not opened by libevdev).
        if let uinput {
            libevdev_uinput_destroy(uinput)
        } else {
            _ = try? SystemCall.posixBlocking("ioctl(UI_DEV_DESTROY)", path: Self.uinputPath) {
                gestured_uinput_destroy(control.rawValue)
            }
        }
        try? control.close()
    }

    /// Writes events in order, in one `write(2)` (timestamps are ignored: the kernel stamps
    /// each event when it passes it on). Include the `SYN_REPORT`s: the kernel delivers a
    /// frame to readers only when it sees one.
    public func write(_ events: [InputEvent]) throws(SystemError) {
        try Self.write(events, to: descriptor)
    }

    /// The uinput descriptor the device lives on (the device lives while any copy of it is
    /// open, or until it is destroyed).
    public var descriptor: FileDescriptor { control }

    /// Writes events to a uinput descriptor, in one `write(2)` (the clone guard writes
    /// through its own copy of a clone's descriptor).
    public static func write(_ events: [InputEvent], to descriptor: FileDescriptor) throws(SystemError) {
        let raw = events.map { event in
            input_event(time: timeval(), type: event.type, code: event.code, value: event.value)
        }
        _ = try SystemCall.adopting("write", path: uinputPath) {
            try raw.withUnsafeBytes { try descriptor.writeAll($0) }
        }
    }

    /// Copies name, ids, properties, codes and axis ranges into a fresh libevdev.
    private static func configure(_ device: OpaquePointer, from description: DeviceDescription) {
        libevdev_set_name(device, description.name)
        libevdev_set_id_bustype(device, Int32(description.bus))
        libevdev_set_id_vendor(device, Int32(description.vendor))
        libevdev_set_id_product(device, Int32(description.product))
        libevdev_set_id_version(device, Int32(description.version))
        for property in description.properties.sorted() {
            libevdev_enable_property(device, UInt32(property))
        }
        for (type, codes) in description.codes.sorted(by: { $0.key < $1.key }) {
            libevdev_enable_event_type(device, UInt32(type))
            for code in codes.sorted() {
                switch type {
                case EV.abs:
                    let info = description.absInfo[code] ?? AbsInfo(minimum: 0, maximum: 0)
                    var absinfo = input_absinfo(
                        value: info.value, minimum: info.minimum, maximum: info.maximum,
                        fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
                    libevdev_enable_event_code(device, UInt32(type), UInt32(code), &absinfo)
                case EV.rep:
                    // EV_REP codes need a value (delay / period); the kernel's defaults will do.
                    continue
                default:
                    libevdev_enable_event_code(device, UInt32(type), UInt32(code), nil)
                }
            }
        }
        // Axes described without being listed under EV_ABS still need enabling.
        for (code, info) in description.absInfo where !description.has(EV.abs, code) {
            var absinfo = input_absinfo(
                value: info.value, minimum: info.minimum, maximum: info.maximum,
                fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
            libevdev_enable_event_code(device, UInt32(EV.abs), UInt32(code), &absinfo)
        }
    }
}
