import GestureCore
import GestureProtocol
import SystemCalls

/// A one-key keyboard made through uinput that tells the compositor of user activity
/// without giving any app an input it can act on: wake-swallow keeps the touch that wakes
/// the screen from the app, and with it from the compositor, whose idle notifier (and so
/// swayidle's `resume`) would otherwise never learn that someone touched the screen.
///
/// Every kiosk compositor counts a key as activity before anything else (labwc 0.8, cage
/// 0.1.4 and 0.2, sway 1.7: their key handlers notify the idle notifier first), whereas a
/// switch counts only under sway (labwc and cage drop switch devices) and a touch or a
/// pointer event would reach the app. The key is one the kernel names no key and no XKB
/// keymap gives a symbol (its XKB keycode has no name in xkeyboard-config's `evdev`
/// keycodes), so no compositor binding can match it and no app has anything to do with
/// it: a Wayland app gets its keycode and finds no symbol (Chromium gives the page no
/// event), an X11 app never sees it (X11 keycodes end at 255). It lies in the range every
/// libinput release passes on as a key (`KEY_ALS_TOGGLE`…`KEY_KBDINPUTASSIST_CANCEL`), and
/// udev tags the device `ID_INPUT_KEY` alone, as a power button: it is no keyboard to
/// anything that looks for one.
public final class WakeKey {
    /// The name the kernel (and `libinput list-devices`) shows.
    public static let name = "gestured wake key"
    /// Unassigned in linux/input-event-codes.h (between `KEY_BRIGHTNESS_MAX` 0x251 and
    /// `KEY_KBDINPUTASSIST_PREV` 0x260); XKB keycode 0x25f + 8 = 615, which has no name.
    public static let code: UInt16 = 0x25f
    /// `BUS_VIRTUAL` (linux/input.h).
    static let busVirtual: UInt16 = 0x06

    private let device: UinputDevice

    /// The evdev node of the key, e.g. `/dev/input/event9`.
    public var devnode: String { device.devnode }

    /// Creates the key. Throws `SystemError` with path `/dev/uinput` when uinput is missing
    /// or not writable.
    public init() throws(SystemError) {
        let description = DeviceDescription(name: Self.name, bus: Self.busVirtual, codes: [EV.key: [Self.code]])
        device = try UinputDevice(description)
    }

    /// Presses and releases the key: two frames, one write.
    public func pulse() throws(SystemError) {
        let time = Timestamp.zero
        try device.write([
            InputEvent(time: time, type: EV.key, code: Self.code, value: 1),
            InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0),
            InputEvent(time: time, type: EV.key, code: Self.code, value: 0),
            InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0),
        ])
    }
}
