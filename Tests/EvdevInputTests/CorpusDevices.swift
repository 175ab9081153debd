import GestureCore

/// Device descriptions transcribed by hand from the evemu `.desc` files in
/// `../shared/corpus/evemu-devices` (name, ids, `P:` properties, `B:` key bits, `A:` axes).
enum CorpusDevices {
    static func device(
        _ name: String, bus: UInt16, vendor: UInt16, product: UInt16, properties: Set<UInt16> = [],
        keys: Set<UInt16>, axes: [UInt16: AbsInfo], other: [UInt16: Set<UInt16>] = [:]
    ) -> DeviceDescription {
        var codes = other
        codes[EV.syn] = [SYN.report, SYN.config, SYN.mtReport, SYN.dropped]
        if !keys.isEmpty { codes[EV.key] = keys }
        if !axes.isEmpty { codes[EV.abs] = Set(axes.keys) }
        return DeviceDescription(
            name: name, bus: bus, vendor: vendor, product: product, properties: properties, codes: codes, absInfo: axes)
    }

    static func axis(_ min: Int32, _ max: Int32, resolution: Int32 = 0) -> AbsInfo {
        AbsInfo(minimum: min, maximum: max, resolution: resolution)
    }

    /// touchscreens/ELAN Touchscreen.desc: protocol B, 10 slots, resolution 10 units/mm.
    static let elan = device(
        "ELAN Touchscreen", bus: 0x03, vendor: 0x04f3, product: 0x010c, properties: [INPUTPROP.direct],
        keys: [BTN.touch],
        axes: [
            ABS.x: axis(0, 3312, resolution: 10), ABS.y: axis(0, 1872, resolution: 10),
            ABS.mtSlot: axis(0, 9), ABS.mtTouchMajor: axis(0, 255, resolution: 1),
            ABS.mtTouchMinor: axis(0, 255, resolution: 1), ABS.mtOrientation: axis(0, 1),
            ABS.mtPositionX: axis(0, 3312, resolution: 10), ABS.mtPositionY: axis(0, 1872, resolution: 10),
            ABS.mtTrackingID: axis(0, 65535),
            ABS.mtToolX: axis(0, 3312, resolution: 10), ABS.mtToolY: axis(0, 1872, resolution: 10),
        ])

    /// touchscreens/Atmel maXTouch Touchscreen.desc: protocol B, resolution 0, ids 0000:0000.
    static let atmel = device(
        "Atmel maXTouch Touchscreen", bus: 0x18, vendor: 0, product: 0, properties: [INPUTPROP.direct],
        keys: [BTN.touch],
        axes: [
            ABS.x: axis(0, 799), ABS.y: axis(0, 479), ABS.mtSlot: axis(0, 9),
            ABS.mtPositionX: axis(0, 799), ABS.mtPositionY: axis(0, 479), ABS.mtToolType: axis(0, 2),
            ABS.mtTrackingID: axis(0, 65535), ABS.mtDistance: axis(0, 1),
        ])

    /// touchscreens/N-Trig MultiTouch.desc: protocol A (no slots), no INPUT_PROP_DIRECT
    /// (old kernel), BTN_TOUCH + BTN_TOOL_DOUBLETAP, ABS_MISC, resolution not given.
    static let ntrig = device(
        "N-Trig MultiTouch", bus: 0x03, vendor: 0x1b96, product: 0x0001,
        keys: [BTN.touch, BTN.toolDoubleTap],
        axes: [
            ABS.x: axis(0, 9600), ABS.y: axis(0, 7200), 0x28: axis(0, 255),
            ABS.mtTouchMajor: axis(0, 9600), ABS.mtTouchMinor: axis(0, 7200), ABS.mtOrientation: axis(0, 1),
            ABS.mtPositionX: axis(0, 9600), ABS.mtPositionY: axis(0, 7200),
        ],
        other: [EV.msc: [0x04]])

    /// touchpads/SynPS2 Synaptics TouchPad.desc: clickpad (POINTER + BUTTONPAD), 2 slots.
    static let synaptics = device(
        "SynPS/2 Synaptics TouchPad", bus: 0x11, vendor: 0x0002, product: 0x0007,
        properties: [INPUTPROP.pointer, INPUTPROP.buttonpad],
        keys: [BTN.left, BTN.toolFinger, BTN.toolQuintTap, BTN.touch, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap],
        axes: [
            ABS.x: axis(1472, 5472), ABS.y: axis(1408, 4448), ABS.pressure: axis(0, 255), ABS.toolWidth: axis(0, 15),
            ABS.mtSlot: axis(0, 1), ABS.mtPositionX: axis(1472, 5472), ABS.mtPositionY: axis(1408, 4448),
            ABS.mtTrackingID: axis(0, 65535), ABS.mtPressure: axis(0, 255),
        ])

    /// tablets/Wacom Intuos5 touch M Finger.desc: the finger half of a pen tablet: POINTER,
    /// BTN_TOOL_FINGER, 16 slots — a touchpad.
    static let wacomFinger = device(
        "Wacom Intuos5 touch M Finger", bus: 0x03, vendor: 0x056a, product: 0x0027,
        properties: [INPUTPROP.pointer],
        keys: [BTN.toolFinger, BTN.touch, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap],
        axes: [
            ABS.x: axis(0, 4096), ABS.y: axis(0, 4096), ABS.mtSlot: axis(0, 15), ABS.mtTouchMajor: axis(0, 255),
            ABS.mtPositionX: axis(0, 4096), ABS.mtPositionY: axis(0, 4096), ABS.mtTrackingID: axis(0, 65535),
        ])

    /// The pen half of the same Wacom tablet. Not in the corpus (it holds only the finger
    /// nodes); modelled on the kernel's wacom driver: POINTER, pen/rubber tools, stylus
    /// buttons, pressure, distance, tilt, resolution 200 units/mm.
    static let wacomPen = device(
        "Wacom Intuos5 touch M Pen", bus: 0x03, vendor: 0x056a, product: 0x0027,
        properties: [INPUTPROP.pointer],
        keys: [BTN.toolPen, BTN.toolRubber, BTN.touch, BTN.stylus, BTN.stylus2],
        axes: [
            ABS.x: axis(0, 44704, resolution: 200), ABS.y: axis(0, 27940, resolution: 200),
            ABS.pressure: axis(0, 2047), ABS.distance: axis(0, 63), 0x1a: axis(-64, 63), 0x1b: axis(-64, 63),
        ])

    /// tablets/eGalax Inc. USB TouchController.desc: BTN_TOOL_PEN + BTN_TOUCH, no properties.
    static let egalaxPen = device(
        "eGalax Inc. USB TouchController", bus: 0x03, vendor: 0x0eef, product: 0x0001,
        keys: [BTN.left, BTN.right, BTN.toolPen, BTN.touch],
        axes: [ABS.x: axis(42, 1981), ABS.y: axis(42, 1981), 0x02: axis(30, 4040), 0x03: axis(60, 4035)],
        other: [EV.msc: [0x04]])

    /// A plain keyboard: no absolute axes at all.
    static let keyboard = device(
        "AT Translated Set 2 keyboard", bus: 0x11, vendor: 0x0001, product: 0x0001,
        keys: [1, 2, 3, 28, 57], axes: [:], other: [EV.msc: [0x04], EV.led: [0, 1, 2], EV.rep: []])
}
