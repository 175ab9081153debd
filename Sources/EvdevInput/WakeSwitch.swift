import GestureCore
import GestureProtocol
import SystemCalls

/// A switch made through uinput that tells the compositor of user activity without giving
/// any client an input: wake-swallow keeps the touch that wakes the screen from the app,
/// and with it from the compositor, whose idle manager (and so swayidle's `resume`) would
/// otherwise never learn that someone touched the screen.
///
/// The switch is a tablet-mode switch (`SW_TABLET_MODE`), toggled on and off again in one
/// write. libinput reports it as a switch toggle; sway counts a switch toggle as activity
/// (its seat's idle sources include `switch`) and no Wayland protocol passes switches to
/// clients. The lid switch would do too, but logind suspends on a lid closing; nothing
/// acts on tablet mode on a kiosk unless its compositor has a `bindswitch tablet:…`.
public final class WakeSwitch {
    /// The name the kernel (and `libinput list-devices`) shows.
    public static let name = "gestured wake switch"
    /// `SW_TABLET_MODE` (linux/input-event-codes.h).
    static let tabletMode: UInt16 = 0x01
    /// `BUS_VIRTUAL` (linux/input.h).
    static let busVirtual: UInt16 = 0x06

    private let device: UinputDevice

    /// The evdev node of the switch, e.g. `/dev/input/event9`.
    public var devnode: String { device.devnode }

    /// Creates the switch. Throws `SystemError` with path `/dev/uinput` when uinput is
    /// missing or not writable.
    public init() throws(SystemError) {
        let description = DeviceDescription(name: Self.name, bus: Self.busVirtual, codes: [EV.sw: [Self.tabletMode]])
        device = try UinputDevice(description)
    }

    /// Toggles the switch on and off: two frames, one write.
    public func pulse() throws(SystemError) {
        let time = Timestamp.zero
        try device.write([
            InputEvent(time: time, type: EV.sw, code: Self.tabletMode, value: 1),
            InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0),
            InputEvent(time: time, type: EV.sw, code: Self.tabletMode, value: 0),
            InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0),
        ])
    }
}
