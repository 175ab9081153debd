import CSystemCalls
import CUdev
import EvdevInput
import Glibc
import SystemCalls
import SystemPackage

// libudev is used here and in UdevDatabase.swift only; why libudev and not sd-device:
// docs/architecture.md, "libsystemd".

/// udev's device events for subsystem `input`, from udevd's netlink group (`udev`: after its
/// rules ran), watched on the daemon's loop; only `/dev/input/eventN` nodes are reported.
final class UdevMonitor {
    /// At most this many events are read per dispatch (the rest at the next: the socket stays
    /// ready), so a burst cannot hold the loop.
    static let eventsPerDispatch = 64

    private let context: OpaquePointer
    private let monitor: OpaquePointer
    private let handler: (DeviceChange) -> Void
    private var watch: IOWatch?

    init(loop: EventLoop, handler: @escaping (DeviceChange) -> Void) throws(SystemError) {
        guard let context = udev_new() else { throw SystemError(.noMemory, call: "udev_new") }
        guard let monitor = udev_monitor_new_from_netlink(context, "udev") else {
            let code = Glibc.errno
            udev_unref(context)
            throw SystemError(Errno(rawValue: code == 0 ? ENOMEM : code), call: "udev_monitor_new_from_netlink")
        }
        self.context = context
        self.monitor = monitor
        self.handler = handler
        try SystemCall.negatedErrnoBlocking("udev_monitor_filter_add_match_subsystem_devtype") {
            udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        }
        try SystemCall.negatedErrnoBlocking("udev_monitor_enable_receiving") { udev_monitor_enable_receiving(monitor) }
        let fd = try SystemCall.negatedErrnoBlocking("udev_monitor_get_fd") { udev_monitor_get_fd(monitor) }
        watch = try loop.watch(FileDescriptor(rawValue: fd), events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in receive() }
    }

    deinit {
        watch?.cancel()
        udev_monitor_unref(monitor)
        udev_unref(context)
    }

    /// Reads what udevd sent (its socket is non-blocking). A receive buffer that overflowed
    /// (`ENOBUFS`: events were lost) is reported as `.overflow`, for a rescan.
    private func receive() {
        for _ in 0..<Self.eventsPerDispatch {
            guard let device = udev_monitor_receive_device(monitor) else {
                if Glibc.errno == ENOBUFS { handler(.overflow) }
                return
            }
            defer { udev_device_unref(device) }
            let action = udev_device_get_action(device).map { String(cString: $0) }
            let devnode = udev_device_get_devnode(device).map { String(cString: $0) }
            if let change = Self.change(action: action, devnode: devnode) { handler(change) }
        }
    }

    /// What an event of udev's means to the daemon: `add`, `remove` and `change` of an
    /// `eventN` node; nil for anything else (`bind`, the `inputN` parent, no node).
    static func change(action: String?, devnode: String?) -> DeviceChange? {
        guard let devnode, let last = devnode.split(separator: "/").last, DeviceDiscovery.eventNumber(last) != nil else { return nil }
        switch action {
        case "add": return .added(devnode)
        case "remove": return .removed(devnode)
        case "change": return .attributesChanged(devnode)
        default: return nil
        }
    }
}
