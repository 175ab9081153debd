import GestureProtocol

/// The pointer device a pass-through device's touches drive when they reach the app as a
/// pointer (`app-input = "pointer"`), made beside the touch clone: how it is described,
/// how it is told from every other device, and how `PointerStep`s are written on it.
///
/// It is an **absolute** pointer, as QEMU's USB tablet: `ABS_X`/`ABS_Y` over the whole
/// screen in screen orientation (the touch's position through the device's rotation and
/// calibration, the transform the regions use), so the pointer lands where the finger
/// touched; `BTN_LEFT`, `BTN_RIGHT`, `BTN_MIDDLE`; `REL_WHEEL`/`REL_HWHEEL` with their
/// hi-res twins. No `BTN_TOUCH` and no `INPUT_PROP_DIRECT`: udev's `input_id` builtin calls
/// a device with absolute axes and a mouse button but no touch or stylus a mouse
/// (`ID_INPUT_MOUSE`), and libinput then reads it as an absolute pointer mapped to the
/// screen. Its `phys` (`gestured-pointer:` and the original's node) marks it as gestured's.
public enum PointerClone {
    /// The pointer's `phys` is this followed by the original's node.
    public static let physPrefix = "gestured-pointer:"
    /// What the pointer's name ends with, after the touch clone's name.
    public static let nameSuffix = " (gestured pointer)"
    /// The largest `ABS_X`/`ABS_Y` value: the screen's right and bottom edges (QEMU's tablet's range).
    public static let axisMaximum: Int32 = 32767
    /// `BUS_VIRTUAL` (linux/input.h).
    static let busVirtual: UInt16 = 0x06

    /// The original's node when `phys` is a pointer's, else nil.
    public static func originalNode(ofPointerPhys phys: String?) -> String? {
        guard let phys, phys.hasPrefix(physPrefix) else { return nil }
        return String(phys.dropFirst(physPrefix.count))
    }

    /// The description of the pointer for the device at `node` whose clone is named
    /// `cloneName`: that name with `nameSuffix`, shortened to the kernel's 79 bytes.
    public static func description(node: String, cloneName: String) -> DeviceDescription {
        let room = DeviceSettings.longestCloneName - nameSuffix.utf8.count
        var base = Substring(cloneName)
        while base.utf8.count > room { base = base.dropLast() }
        return DeviceDescription(
            name: base + nameSuffix, phys: physPrefix + node, bus: busVirtual,
            codes: [
                EV.syn: [SYN.report],
                EV.key: [BTN.left, BTN.right, BTN.middle],
                EV.rel: [REL.hwheel, REL.wheel, REL.wheelHiRes, REL.hwheelHiRes],
                EV.abs: [ABS.x, ABS.y],
            ],
            absInfo: [ABS.x: AbsInfo(minimum: 0, maximum: axisMaximum), ABS.y: AbsInfo(minimum: 0, maximum: axisMaximum)])
    }

    /// The button code of `button`.
    public static func code(_ button: PointerButton) -> UInt16 {
        switch button {
        case .left: BTN.left
        case .right: BTN.right
        case .middle: BTN.middle
        }
    }

    /// Writes `PointerStep`s as the pointer's frames: one frame per step, so a press and
    /// its release are two frames as a mouse reports them. The wheel's detents
    /// (`REL_WHEEL`, `REL_HWHEEL`) go with the hi-res units whenever a whole detent has
    /// turned, as the kernel's HID driver reports a hi-res wheel, for readers that know only
    /// detents.
    public struct Frames: Sendable, Hashable {
        private var vertical: Int32 = 0
        private var horizontal: Int32 = 0

        public init() {}

        public mutating func events(_ steps: [PointerStep], at time: Timestamp) -> [InputEvent] {
            var events: [InputEvent] = []
            func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                events.append(InputEvent(time: time, type: type, code: code, value: value))
            }
            for step in steps {
                switch step {
                case .move(let point):
                    add(EV.abs, ABS.x, Self.axisValue(point.x))
                    add(EV.abs, ABS.y, Self.axisValue(point.y))
                case .press(let button):
                    add(EV.key, PointerClone.code(button), 1)
                case .release(let button):
                    add(EV.key, PointerClone.code(button), 0)
                case .wheel(let up, let right):
                    if up != 0 { add(EV.rel, REL.wheelHiRes, up) }
                    if right != 0 { add(EV.rel, REL.hwheelHiRes, right) }
                    let detents = PointerEmulator.wheelUnitsPerDetent
                    vertical = vertical &+ up
                    horizontal = horizontal &+ right
                    if vertical / detents != 0 { add(EV.rel, REL.wheel, vertical / detents) }
                    if horizontal / detents != 0 { add(EV.rel, REL.hwheel, horizontal / detents) }
                    vertical %= detents
                    horizontal %= detents
                }
                add(EV.syn, SYN.report, 0)
            }
            return events
        }

        /// A normalised coordinate as an axis value, held on the screen.
        private static func axisValue(_ coordinate: Double) -> Int32 {
            guard coordinate.isFinite else { return 0 }
            return Int32((max(0, min(1, coordinate)) * Double(axisMaximum)).rounded())
        }
    }
}
