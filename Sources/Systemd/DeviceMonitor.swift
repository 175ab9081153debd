import CSystemd
import Glibc
import SystemCalls
import SystemPackage

/// udev's device events for one subsystem, through libsystemd's sd-device monitor on udevd's
/// netlink group (`udev`: after its rules ran, permissions set and by-id links made), its
/// socket an IO source of the loop (`sd_device_monitor_attach_event`). Stopped when released.
///
/// sd-device 252 reads one event per dispatch and, should the socket's receive buffer
/// overflow (`ENOBUFS`), drops what was lost without telling its caller (libudev returned the
/// error): the buffer is made large enough (`receiveBufferSize`) that only a loop stopped for
/// a long time could lose an event.
public final class DeviceMonitor {
    /// The socket's receive buffer, as `udevadm monitor` asks for (memory is only taken by
    /// events queued; beyond `net.core.rmem_max` it needs `CAP_NET_ADMIN`, else the kernel
    /// gives `rmem_max`).
    public static let receiveBufferSize = 128 * 1024 * 1024

    private let monitor: OpaquePointer
    private unowned let loop: EventLoop
    private let handler: (_ action: String?, _ devnode: String?) -> Void

    /// Starts following `subsystem`'s devices; `handler` gets each event's action (`add`,
    /// `remove`, `change`, `bind`, …) and device node, either nil when the event has none.
    public init(loop: EventLoop, subsystem: String, handler: @escaping (_ action: String?, _ devnode: String?) -> Void) throws(SystemError)
    {
        var made: OpaquePointer?
        try SystemCall.negatedErrnoBlocking("sd_device_monitor_new") { sd_device_monitor_new(&made) }
        guard let made else { throw SystemError(.noMemory, call: "sd_device_monitor_new") }
        monitor = made
        self.loop = loop
        self.handler = handler
        do throws(SystemError) {
            // A smaller buffer still works: not worth failing hot-plug for.
            _ = sd_device_monitor_set_receive_buffer_size(made, Self.receiveBufferSize)
            try SystemCall.negatedErrnoBlocking("sd_device_monitor_filter_add_match_subsystem_devtype") {
                sd_device_monitor_filter_add_match_subsystem_devtype(made, subsystem, nil)
            }
            try SystemCall.negatedErrnoBlocking("sd_device_monitor_attach_event") { sd_device_monitor_attach_event(made, loop.handle) }
            try SystemCall.negatedErrnoBlocking("sd_device_monitor_start") {
                sd_device_monitor_start(made, deviceTrampoline, Unmanaged.passUnretained(self).toOpaque())
            }
        } catch {
            sd_device_monitor_unref(made)
            throw error
        }
    }

    deinit {
        sd_device_monitor_stop(monitor)
        sd_device_monitor_unref(monitor)
    }

    fileprivate func received(_ device: OpaquePointer) {
        var name: UnsafePointer<CChar>?
        let devnode = sd_device_get_devname(device, &name) >= 0 ? name.map { String(cString: $0) } : nil
        var action = sd_device_action_t(rawValue: 0)
        let known = sd_device_get_action(device, &action) >= 0
        loop.dispatch { handler(known ? Self.name(of: action) : nil, devnode) }
    }

    /// The action's name as udev writes it (`ACTION=`).
    static func name(of action: sd_device_action_t) -> String? {
        switch action {
        case SD_DEVICE_ADD: "add"
        case SD_DEVICE_REMOVE: "remove"
        case SD_DEVICE_CHANGE: "change"
        case SD_DEVICE_MOVE: "move"
        case SD_DEVICE_ONLINE: "online"
        case SD_DEVICE_OFFLINE: "offline"
        case SD_DEVICE_BIND: "bind"
        case SD_DEVICE_UNBIND: "unbind"
        default: nil
        }
    }
}

private func deviceTrampoline(_: OpaquePointer?, _ device: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let device, let userdata else { return 0 }
    Unmanaged<DeviceMonitor>.fromOpaque(userdata).takeUnretainedValue().received(device)
    return 0
}
