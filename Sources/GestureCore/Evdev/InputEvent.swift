import GestureProtocol

/// One kernel input event (`struct input_event`), as read from an evdev node or a recording.
///
/// `time` is the kernel timestamp in microseconds (CLOCK_MONOTONIC for live devices, the
/// recording's own clock for replays). GestureCore never reads a clock: all time enters here.
public struct InputEvent: Sendable, Hashable {
    /// Timestamp in microseconds.
    public var time: Timestamp
    /// Event type (`EV_*`).
    public var type: UInt16
    /// Event code (`SYN_*`, `BTN_*`, `ABS_*`, …), meaning depends on `type`.
    public var code: UInt16
    /// Event value.
    public var value: Int32

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// Numeric evdev constants from `linux/input-event-codes.h`, as pure Swift values so that
/// GestureCore and the recording readers need no C headers.
public enum EV {
    public static let syn: UInt16 = 0x00
    public static let key: UInt16 = 0x01
    public static let rel: UInt16 = 0x02
    public static let abs: UInt16 = 0x03
    public static let msc: UInt16 = 0x04
    public static let sw: UInt16 = 0x05
    public static let led: UInt16 = 0x11
    public static let snd: UInt16 = 0x12
    public static let rep: UInt16 = 0x14
    public static let ff: UInt16 = 0x15
    public static let pwr: UInt16 = 0x16
    public static let ffStatus: UInt16 = 0x17
}

/// `SYN_*` codes.
public enum SYN {
    public static let report: UInt16 = 0
    public static let config: UInt16 = 1
    public static let mtReport: UInt16 = 2
    public static let dropped: UInt16 = 3
}

/// The `BTN_*` key codes that matter for touch devices.
public enum BTN {
    public static let left: UInt16 = 0x110
    public static let right: UInt16 = 0x111
    public static let middle: UInt16 = 0x112
    public static let toolPen: UInt16 = 0x140
    public static let toolRubber: UInt16 = 0x141
    public static let toolFinger: UInt16 = 0x145
    public static let toolQuintTap: UInt16 = 0x148
    public static let touch: UInt16 = 0x14a
    public static let stylus: UInt16 = 0x14b
    public static let stylus2: UInt16 = 0x14c
    public static let toolDoubleTap: UInt16 = 0x14d
    public static let toolTripleTap: UInt16 = 0x14e
    public static let toolQuadTap: UInt16 = 0x14f
}

/// The `REL_*` codes of a wheel: the detents (`REL_WHEEL`, `REL_HWHEEL`) and the same
/// movement in 1/120 of a detent (`REL_WHEEL_HI_RES`, `REL_HWHEEL_HI_RES`).
public enum REL {
    public static let hwheel: UInt16 = 0x06
    public static let wheel: UInt16 = 0x08
    public static let wheelHiRes: UInt16 = 0x0b
    public static let hwheelHiRes: UInt16 = 0x0c
}

/// `ABS_*` axis codes.
public enum ABS {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    public static let pressure: UInt16 = 0x18
    public static let distance: UInt16 = 0x19
    public static let toolWidth: UInt16 = 0x1c
    public static let mtSlot: UInt16 = 0x2f
    public static let mtTouchMajor: UInt16 = 0x30
    public static let mtTouchMinor: UInt16 = 0x31
    public static let mtWidthMajor: UInt16 = 0x32
    public static let mtWidthMinor: UInt16 = 0x33
    public static let mtOrientation: UInt16 = 0x34
    public static let mtPositionX: UInt16 = 0x35
    public static let mtPositionY: UInt16 = 0x36
    public static let mtToolType: UInt16 = 0x37
    public static let mtBlobID: UInt16 = 0x38
    public static let mtTrackingID: UInt16 = 0x39
    public static let mtPressure: UInt16 = 0x3a
    public static let mtDistance: UInt16 = 0x3b
    public static let mtToolX: UInt16 = 0x3c
    public static let mtToolY: UInt16 = 0x3d
}

/// `MT_TOOL_*` values of `ABS_MT_TOOL_TYPE`.
public enum MTTool {
    public static let finger: Int32 = 0
    public static let pen: Int32 = 1
    public static let palm: Int32 = 2
    public static let dial: Int32 = 0x0a
}

/// `INPUT_PROP_*` device properties.
public enum INPUTPROP {
    public static let pointer: UInt16 = 0x00
    public static let direct: UInt16 = 0x01
    public static let buttonpad: UInt16 = 0x02
    public static let semiMT: UInt16 = 0x03
    public static let topButtonpad: UInt16 = 0x04
    public static let pointingStick: UInt16 = 0x05
    public static let accelerometer: UInt16 = 0x06
}
