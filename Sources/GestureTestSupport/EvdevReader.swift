import GestureCore

/// What a reader of an evdev node knows, rebuilt from the events it receives as libevdev
/// would keep it: the slots (tracking id and position), the current slot, the other axes
/// and the keys; for protocol A the contact list of the last frame. `frames` holds the
/// state at every `SYN_REPORT`, so two event streams compare frame by frame: the
/// pass-through filter's unit tests compare the clone's stream with the device's, and the
/// end-to-end driver the events it wrote with those a reader of the clone received.
public struct EvdevReader: Equatable, Sendable {
    /// A touch in a slot: its tracking id and position.
    public struct Touch: Equatable, Sendable, CustomStringConvertible {
        public var id: Int32
        public var x: Int32?
        public var y: Int32?

        public init(id: Int32, x: Int32? = nil, y: Int32? = nil) {
            self.id = id
            self.x = x
            self.y = y
        }

        public var description: String { "#\(id)@(\(x.map(String.init) ?? "-"), \(y.map(String.init) ?? "-"))" }
    }

    /// Protocol B: slot → touch, for the slots with a touch.
    public private(set) var slots: [Int: Touch] = [:]
    /// Protocol A: the contacts of the last frame as `[x, y]`.
    public private(set) var contacts: [[Int32]] = []
    /// Every other axis's last value.
    public private(set) var axes: [UInt16: Int32] = [:]
    /// Every key's last value.
    public private(set) var keys: [UInt16: Int32] = [:]
    /// The state after each `SYN_REPORT` (their own `frames` empty).
    public private(set) var frames: [EvdevReader] = []
    private let protocolA: Bool
    private var slot = 0
    private var slotValues: [Int: [UInt16: Int32]] = [:]
    private var pending: [[Int32]] = []
    private var report: [UInt16: Int32] = [:]
    private var sawReport = false

    /// `protocolA`: the device reports `SYN_MT_REPORT` lists, not slots.
    public init(protocolA: Bool = false) {
        self.protocolA = protocolA
    }

    public mutating func read(_ events: [InputEvent]) {
        for event in events { read(event) }
    }

    public mutating func read(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EV.abs, ABS.mtSlot) where !protocolA:
            slot = Int(event.value)
        case (EV.abs, ABS.mtTrackingID) where !protocolA:
            slots[slot] = event.value < 0 ? nil : Touch(id: event.value)
            syncSlot()
        case (EV.abs, let code) where code >= ABS.mtSlot && code <= ABS.mtToolY:
            if protocolA {
                report[code] = event.value
            } else {
                slotValues[slot, default: [:]][code] = event.value
                syncSlot()
            }
        case (EV.abs, let code):
            axes[code] = event.value
        case (EV.key, let code):
            keys[code] = event.value
        case (EV.syn, SYN.mtReport):
            if !report.isEmpty { pending.append([report[ABS.mtPositionX] ?? -1, report[ABS.mtPositionY] ?? -1]) }
            report = [:]
            sawReport = true
        case (EV.syn, SYN.report):
            if sawReport { contacts = pending }
            pending = []
            sawReport = false
            var snapshot = self
            snapshot.frames = []
            frames.append(snapshot)
        default:
            break
        }
    }

    /// Keys down (value non-zero), for comparing: a key never pressed and a key released
    /// read the same.
    public var keysDown: Set<UInt16> { Set(keys.filter { $0.value != 0 }.keys) }

    /// Touches, contacts, axes and keys down agree (the frames are not compared).
    public static func == (a: EvdevReader, b: EvdevReader) -> Bool {
        a.slots == b.slots && a.contacts == b.contacts && a.axes == b.axes && a.keysDown == b.keysDown
    }

    private mutating func syncSlot() {
        guard slots[slot] != nil else { return }
        slots[slot]?.x = slotValues[slot]?[ABS.mtPositionX]
        slots[slot]?.y = slotValues[slot]?[ABS.mtPositionY]
    }
}
