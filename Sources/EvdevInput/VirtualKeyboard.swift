import CEvdev
import GestureCore
import SystemCalls

/// Evdev key names (`KEY_R`, `KEY_LEFTCTRL`) and codes, from libevdev's table of the
/// kernel's `input-event-codes.h`.
public enum KeyNames {
    /// The `EV_KEY` code named `name`, or nil when libevdev knows no such key.
    public static func code(_ name: String) -> UInt16? {
        let code = libevdev_event_code_from_name(UInt32(EV.key), name)
        guard code >= 0, code <= Int32(UInt16.max) else { return nil }
        return UInt16(code)
    }
}

/// A keyboard made through uinput (`gesturectl actions`' `keys`): the compositor sees it as
/// one more keyboard and receives the chords typed on it.
public final class VirtualKeyboard {
    /// The name the kernel (and `libinput list-devices`) shows.
    public static let name = "gestured virtual keyboard"
    /// Every key of a full keyboard (KEY_ESC … KEY_MICMUTE), so udev tags the device
    /// `ID_INPUT_KEYBOARD` and compositors treat it as a keyboard.
    static let keyboardKeys: ClosedRange<UInt16> = 1...248
    /// `BUS_VIRTUAL` (linux/input.h).
    static let busVirtual: UInt16 = 0x06

    private let device: UinputDevice

    /// The evdev node of the keyboard, e.g. `/dev/input/event9`.
    public var devnode: String { device.devnode }

    /// Creates the keyboard with every keyboard key and `extraKeys` (e.g. `BTN_*` codes an
    /// actions file names). Throws `SystemError` with path `/dev/uinput` when uinput is
    /// missing or not writable.
    public init(extraKeys: [UInt16] = []) throws(SystemError) {
        let keys = Set(Self.keyboardKeys).union(extraKeys)
        let description = DeviceDescription(name: Self.name, bus: Self.busVirtual, codes: [EV.key: keys])
        device = try UinputDevice(description)
    }

    /// Types `events` (key downs, ups and reports, as `KeyChord.events` makes them).
    public func type(_ events: [InputEvent]) throws(SystemError) {
        try device.write(events)
    }
}
