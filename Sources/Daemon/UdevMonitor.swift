import EvdevInput
import SystemCalls
import Systemd

/// udev's events for subsystem `input`, watched on the daemon's loop through sd-device
/// (`Systemd.DeviceMonitor`); only `/dev/input/eventN` nodes are reported.
final class UdevMonitor {
    private let monitor: DeviceMonitor

    init(loop: EventLoop, handler: @escaping (DeviceChange) -> Void) throws(SystemError) {
        monitor = try DeviceMonitor(loop: loop, subsystem: "input") { action, devnode in
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
