import GestureProtocol

/// Which codes of a device carry state, in a fixed order, so that a device's state is a few
/// arrays of values and two states compare code by code. Built once per device.
struct EvdevLayout: Sendable {
    /// How the device reports touches.
    enum Mode: Sendable, Hashable {
        /// Protocol B: `ABS_MT_SLOT`, tracking ids.
        case slotted(count: Int)
        /// Protocol A: `SYN_MT_REPORT` lists, every contact in every frame.
        case unslotted
        /// No multitouch axes: one contact, down while the touch key is.
        case singleTouch(touchKey: UInt16)
    }

    let mode: Mode
    /// `ABS_MT_*` axes of a slot, without `ABS_MT_SLOT` and `ABS_MT_TRACKING_ID`.
    let slotAxes: [UInt16]
    /// Every other `EV_ABS` code the device has.
    let axes: [UInt16]
    /// Every `EV_KEY` code the device has.
    let keys: [UInt16]
    /// Index in `slotAxes` of `ABS_MT_POSITION_X`, `_Y` and `ABS_MT_PRESSURE`.
    let slotX: Int?
    let slotY: Int?
    let slotPressure: Int?
    /// Index in `axes` of `ABS_X`, `ABS_Y`, `ABS_PRESSURE`.
    let x: Int?
    let y: Int?
    let pressure: Int?

    /// `BTN_TOOL_FINGER` … `BTN_TOOL_QUINTTAP` for 1 … 5 fingers (5 and more: quint).
    static let fingerCountKeys: [UInt16] = [BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap, BTN.toolQuintTap]
    /// The digitizer keys (`BTN_TOOL_PEN` … `BTN_TOOL_QUADTAP`, `BTN_TOUCH` and the stylus
    /// buttons among them): what a single-touch device's touch is made of.
    static let digitizerKeys: ClosedRange<UInt16> = BTN.toolPen...BTN.toolQuadTap

    init(_ device: DeviceDescription) {
        let absCodes = (device.codes[EV.abs] ?? []).union(device.absInfo.keys).sorted()
        let multitouch = absCodes.filter { $0 >= ABS.mtSlot && $0 <= ABS.mtToolY }
        slotAxes = multitouch.filter { $0 != ABS.mtSlot && $0 != ABS.mtTrackingID }
        axes = absCodes.filter { $0 < ABS.mtSlot || $0 > ABS.mtToolY }
        keys = (device.codes[EV.key] ?? []).sorted()
        if device.hasSlots {
            mode = .slotted(count: device.slotCount)
        } else if device.isMultitouch {
            mode = .unslotted
        } else {
            // As ContactTracker: BTN_TOUCH, or BTN_LEFT on a device without it.
            let touchKey = !device.has(EV.key, BTN.touch) && device.has(EV.key, BTN.left) ? BTN.left : BTN.touch
            mode = .singleTouch(touchKey: touchKey)
        }
        slotX = slotAxes.firstIndex(of: ABS.mtPositionX)
        slotY = slotAxes.firstIndex(of: ABS.mtPositionY)
        slotPressure = slotAxes.firstIndex(of: ABS.mtPressure)
        x = axes.firstIndex(of: ABS.x)
        y = axes.firstIndex(of: ABS.y)
        pressure = axes.firstIndex(of: ABS.pressure)
    }

    var slotCount: Int {
        switch mode {
        case .slotted(let count): count
        case .unslotted, .singleTouch: 0
        }
    }
}

/// One protocol-B slot: its tracking id (-1: empty) and its axes in `EvdevLayout.slotAxes` order.
struct SlotState: Sendable, Hashable {
    var trackingID: Int32 = -1
    var values: [Int32]

    var isDown: Bool { trackingID >= 0 }
}

/// One protocol-A contact as reported between two `SYN_MT_REPORT`s: its events, verbatim.
struct ReportedContact: Sendable, Hashable {
    var events: [InputEvent]
}

/// The state of an evdev device as its readers know it after a frame: what the kernel keeps
/// per device (axes, keys, slots, the current slot) and, for protocol A, the contact list of
/// the last frame. The filter keeps one for the original device and one for the clone.
struct EvdevState: Sendable, Hashable {
    var slots: [SlotState]
    /// The slot `ABS_MT_*` events go to; -1 when the device selected a slot out of range.
    var currentSlot: Int = 0
    /// Values in `EvdevLayout.axes` order.
    var axes: [Int32]
    /// Values in `EvdevLayout.keys` order.
    var keys: [Int32]
    /// Protocol A: the contacts of the last frame.
    var contacts: [ReportedContact] = []

    /// The state of a device just created or opened: axes at their `absinfo` values, no key
    /// down, every slot empty with its axes at 0.
    init(_ layout: EvdevLayout, _ device: DeviceDescription) {
        slots = Array(repeating: SlotState(values: Array(repeating: 0, count: layout.slotAxes.count)), count: layout.slotCount)
        axes = layout.axes.map { device.absInfo[$0]?.value ?? 0 }
        keys = Array(repeating: 0, count: layout.keys.count)
    }

    /// The events that take a reader from `self` to `target`, without the frame's
    /// `SYN_REPORT`: per slot that changed, `ABS_MT_SLOT` (when another slot is current) and
    /// its tracking id and axes (a new touch's tool type, then its id, first; a lift's id
    /// last); protocol A's contact
    /// list when it changed or is not empty; then axes and keys. Values the reader already
    /// has are not written (the kernel would drop them anyway).
    func events(to target: EvdevState, _ layout: EvdevLayout, at time: Timestamp) -> [InputEvent] {
        var out: [InputEvent] = []
        func abs(_ code: UInt16, _ value: Int32) {
            out.append(InputEvent(time: time, type: EV.abs, code: code, value: value))
        }
        var current = currentSlot
        for index in target.slots.indices where target.slots[index] != slots[index] {
            let from = slots[index]
            let to = target.slots[index]
            if current != index {
                abs(ABS.mtSlot, Int32(index))
                current = index
            }
            let idChanged = from.trackingID != to.trackingID
            // A new touch's tool type goes before its tracking id: libinput 1.22 takes the
            // tool type current when the id arrives, so a finger whose frame names the
            // tool after the id, in a slot whose last contact was a palm, is dropped whole.
            var toolFirst: Int?
            if idChanged && to.isDown, let tool = layout.slotAxes.firstIndex(of: ABS.mtToolType),
                from.values[tool] != to.values[tool]
            {
                abs(ABS.mtToolType, to.values[tool])
                toolFirst = tool
            }
            if idChanged && to.isDown { abs(ABS.mtTrackingID, to.trackingID) }
            for axis in layout.slotAxes.indices where from.values[axis] != to.values[axis] && axis != toolFirst {
                abs(layout.slotAxes[axis], to.values[axis])
            }
            if idChanged && !to.isDown { abs(ABS.mtTrackingID, to.trackingID) }
        }
        if case .unslotted = layout.mode, !(contacts.isEmpty && target.contacts.isEmpty) {
            for contact in target.contacts {
                out += contact.events.map { InputEvent(time: time, type: $0.type, code: $0.code, value: $0.value) }
                out.append(InputEvent(time: time, type: EV.syn, code: SYN.mtReport, value: 0))
            }
            // No contact left: one empty report says so.
            if target.contacts.isEmpty { out.append(InputEvent(time: time, type: EV.syn, code: SYN.mtReport, value: 0)) }
        }
        for index in layout.axes.indices where axes[index] != target.axes[index] {
            abs(layout.axes[index], target.axes[index])
        }
        for index in layout.keys.indices where keys[index] != target.keys[index] {
            out.append(InputEvent(time: time, type: EV.key, code: layout.keys[index], value: target.keys[index]))
        }
        return out
    }

    /// The state after `events(to:)` were written: `target`, with the slot the reader now has current.
    mutating func adopt(_ target: EvdevState, _ layout: EvdevLayout) {
        var current = currentSlot
        for index in target.slots.indices where target.slots[index] != slots[index] { current = index }
        self = target
        currentSlot = current
    }
}

/// A device's state as its reader (libevdev) knows it at one moment: what the pass-through
/// filter starts from when it is created for a device already open, so a touch down then,
/// or a later touch whose unchanged axes the kernel does not send again, is seen where it is.
public struct EvdevSnapshot: Sendable, Hashable {
    /// Per slot: each `ABS_MT_*` value (`ABS_MT_TRACKING_ID` included).
    public var slots: [[UInt16: Int32]]
    public var currentSlot: Int
    /// The other `EV_ABS` values and the `EV_KEY` states.
    public var axes: [UInt16: Int32]
    public var keys: [UInt16: Int32]

    public init(slots: [[UInt16: Int32]] = [], currentSlot: Int = 0, axes: [UInt16: Int32] = [:], keys: [UInt16: Int32] = [:]) {
        self.slots = slots
        self.currentSlot = currentSlot
        self.axes = axes
        self.keys = keys
    }

    /// Whether a touch is down: a slot with a tracking id, or `BTN_TOUCH` (protocol A and
    /// single-touch devices).
    public var hasTouchDown: Bool {
        slots.contains { ($0[ABS.mtTrackingID] ?? -1) >= 0 } || (keys[BTN.touch] ?? 0) != 0
    }
}

extension EvdevState {
    /// The state `snapshot` describes, laid out as `layout` says (codes it does not name keep
    /// their value in `self`).
    mutating func apply(_ snapshot: EvdevSnapshot, _ layout: EvdevLayout) {
        for (index, values) in snapshot.slots.enumerated() where slots.indices.contains(index) {
            if let id = values[ABS.mtTrackingID] { slots[index].trackingID = id }
            for (axis, code) in layout.slotAxes.enumerated() {
                if let value = values[code] { slots[index].values[axis] = value }
            }
        }
        if slots.indices.contains(snapshot.currentSlot) { currentSlot = snapshot.currentSlot }
        for (index, code) in layout.axes.enumerated() {
            if let value = snapshot.axes[code] { axes[index] = value }
        }
        for (index, code) in layout.keys.enumerated() {
            if let value = snapshot.keys[code] { keys[index] = value }
        }
    }
}
