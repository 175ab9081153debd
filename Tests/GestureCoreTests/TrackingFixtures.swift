import GestureCore
import GestureProtocol

/// Hand-written event streams for the tracker tests: each `report()` closes a frame and
/// advances the virtual clock by 10 ms.
struct EventScript {
    var time: UInt64 = 1_000_000
    var events: [InputEvent] = []

    mutating func abs(_ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: Timestamp(microseconds: time), type: EV.abs, code: code, value: value))
    }

    mutating func key(_ code: UInt16, _ down: Bool) {
        events.append(InputEvent(time: Timestamp(microseconds: time), type: EV.key, code: code, value: down ? 1 : 0))
    }

    mutating func syn(_ code: UInt16) {
        events.append(InputEvent(time: Timestamp(microseconds: time), type: EV.syn, code: code, value: 0))
    }

    mutating func report() {
        syn(SYN.report)
        time += 10_000
    }

    /// Protocol B: selects `slot` and sends what is given.
    mutating func slot(_ slot: Int32, id: Int32? = nil, x: Int32? = nil, y: Int32? = nil, tool: Int32? = nil) {
        abs(ABS.mtSlot, slot)
        if let id { abs(ABS.mtTrackingID, id) }
        if let tool { abs(ABS.mtToolType, tool) }
        if let x { abs(ABS.mtPositionX, x) }
        if let y { abs(ABS.mtPositionY, y) }
    }

    /// Protocol A: one contact followed by `SYN_MT_REPORT`.
    mutating func contact(x: Int32, y: Int32, id: Int32? = nil) {
        if let id { abs(ABS.mtTrackingID, id) }
        abs(ABS.mtPositionX, x)
        abs(ABS.mtPositionY, y)
        syn(SYN.mtReport)
    }
}

enum Devices {
    /// A protocol-B touchscreen: x 0…1000, y 0…500, resolution 0, like most touchscreens.
    static func slotted(slots: Int32 = 10, resolution: Int32 = 0, toolType: Bool = false) -> DeviceDescription {
        var absInfo: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(minimum: 0, maximum: 1000, resolution: resolution),
            ABS.y: AbsInfo(minimum: 0, maximum: 500, resolution: resolution),
            ABS.mtSlot: AbsInfo(minimum: 0, maximum: slots - 1),
            ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AbsInfo(minimum: 0, maximum: 1000, resolution: resolution),
            ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 500, resolution: resolution),
        ]
        if toolType { absInfo[ABS.mtToolType] = AbsInfo(minimum: 0, maximum: 2) }
        return DeviceDescription(
            name: "virtual protocol B", properties: [INPUTPROP.direct],
            codes: [EV.key: [BTN.touch], EV.abs: Set(absInfo.keys)], absInfo: absInfo)
    }

    /// A protocol-A touchscreen like N-Trig: no slots, optionally tracking ids.
    static func unslotted(trackingIDs: Bool = false) -> DeviceDescription {
        var absInfo: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(minimum: 0, maximum: 9600),
            ABS.y: AbsInfo(minimum: 0, maximum: 7200),
            ABS.mtPositionX: AbsInfo(minimum: 0, maximum: 9600),
            ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 7200),
        ]
        if trackingIDs { absInfo[ABS.mtTrackingID] = AbsInfo(minimum: 0, maximum: 65535) }
        return DeviceDescription(
            name: "virtual protocol A", codes: [EV.key: [BTN.touch], EV.abs: Set(absInfo.keys)], absInfo: absInfo)
    }

    /// A single-touch screen: ABS_X/ABS_Y + BTN_TOUCH.
    static func singleTouch(keys: Set<UInt16> = [BTN.touch]) -> DeviceDescription {
        let absInfo: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(minimum: 0, maximum: 4095),
            ABS.y: AbsInfo(minimum: 0, maximum: 4095),
        ]
        return DeviceDescription(name: "virtual single touch", codes: [EV.key: keys, EV.abs: [ABS.x, ABS.y]], absInfo: absInfo)
    }

    /// A SEMI_MT touchpad with two slots that counts more fingers with BTN_TOOL_*.
    static func semiMTTouchpad() -> DeviceDescription {
        let absInfo: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(minimum: 1472, maximum: 5472, resolution: 55),
            ABS.y: AbsInfo(minimum: 1408, maximum: 4448, resolution: 63),
            ABS.mtSlot: AbsInfo(minimum: 0, maximum: 1),
            ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AbsInfo(minimum: 1472, maximum: 5472, resolution: 55),
            ABS.mtPositionY: AbsInfo(minimum: 1408, maximum: 4448, resolution: 63),
        ]
        return DeviceDescription(
            name: "virtual SEMI_MT touchpad", properties: [INPUTPROP.pointer, INPUTPROP.semiMT],
            codes: [
                EV.key: [BTN.touch, BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap],
                EV.abs: Set(absInfo.keys),
            ], absInfo: absInfo)
    }
}

extension ContactTracker {
    /// Feeds every event and collects the frames completed.
    mutating func frames(_ events: [InputEvent]) -> [TouchFrame] {
        var result: [TouchFrame] = []
        for event in events where feed(event) {
            result.append(frame)
        }
        return result
    }
}

extension TouchFrame {
    /// `(id, phase)` of every contact, in frame order.
    var summary: [Summary] { contacts.map { Summary(id: $0.id, phase: $0.phase) } }

    func contact(_ id: UInt32) -> Contact? { contacts.first { $0.id == id } }
}

struct Summary: Equatable, CustomStringConvertible {
    var id: UInt32
    var phase: TouchPhase
    init(id: UInt32, phase: TouchPhase) {
        self.id = id
        self.phase = phase
    }
    var description: String { "\(id):\(phase)" }
}

func touchState(_ id: UInt32, _ phase: TouchPhase) -> Summary { Summary(id: id, phase: phase) }

/// Whether two numbers agree to 1e-9.
func close(_ a: Double, _ b: Double) -> Bool { Swift.abs(a - b) < 1e-9 }

func close(_ a: Point, _ b: Point) -> Bool { close(a.x, b.x) && close(a.y, b.y) }
