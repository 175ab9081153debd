import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// Feeds a script to a filter, checks that output appears only at `SYN_REPORT` (one clone
/// frame per original frame at most, two when it reveals a touch `app-long-press = false`
/// held) and collects it.
struct PassThroughRun {
    var filter: PassThroughFilter
    var output: [InputEvent] = []
    var cloneFrames = 0
    /// The time of the original frame each clone frame was written at.
    var frameTimes: [Timestamp] = []

    init(_ device: DeviceDescription, _ policy: PassThroughPolicy, current: EvdevSnapshot? = nil, screen: ScreenOrientedClone? = nil) {
        filter = PassThroughFilter(device: device, policy: policy, current: current, screen: screen)
    }

    mutating func feed(_ events: [InputEvent]) {
        for event in events {
            switch filter.feed(event) {
            case .none:
                break
            case .emit(let frame):
                #expect(event.type == EV.syn && event.code == SYN.report, "output only at the end of a frame")
                #expect(frame.last == InputEvent(time: event.time, type: EV.syn, code: SYN.report, value: 0))
                let reports = frame.filter { $0.type == EV.syn && $0.code == SYN.report }.count
                #expect(reports == 1 || reports == 2)
                output += frame
                cloneFrames += reports
                frameTimes += Array(repeating: event.time, count: reports)
            }
        }
    }

    mutating func finish() {
        if case .emit(let frame) = filter.finish(at: 9_000_000) { output += frame }
    }

    var reader: EvdevReader {
        var reader = EvdevReader()
        reader.read(output)
        return reader
    }
}

enum PassThroughDevices {
    /// Protocol B, x 0…1000, y 0…500, with the single-touch emulation and finger counts.
    static let slotted: DeviceDescription = {
        var device = Devices.slotted(slots: 5)
        device.codes[EV.key] = [BTN.touch, BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap]
        return device
    }()

    /// The top tenth of the screen is reserved.
    static let topEdge = PassThroughPolicy(reserved: [.init(name: "exit-edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.1))])
}

/// What one frame changes in one slot.
struct SlotChange {
    var slot: Int32
    var id: Int32? = nil
    var x: Int32? = nil
    var y: Int32? = nil

    static func slot(_ slot: Int32, id: Int32? = nil, x: Int32? = nil, y: Int32? = nil) -> SlotChange {
        SlotChange(slot: slot, id: id, x: x, y: y)
    }
}

extension EventScript {
    /// One protocol-B frame: the slots' changes, the kernel's pointer emulation for
    /// `pointer` (the touches down as (x, y), oldest first) when given, `SYN_REPORT`.
    mutating func frame(_ changes: [SlotChange], pointer touches: [(Int32, Int32)]? = nil) {
        for change in changes { slot(change.slot, id: change.id, x: change.x, y: change.y) }
        if let touches { pointer(touches) }
        report()
    }

    /// The kernel's emulation for the touches given as (x, y), oldest first.
    mutating func pointer(_ touches: [(Int32, Int32)]) {
        key(BTN.touch, !touches.isEmpty)
        key(BTN.toolFinger, touches.count == 1)
        key(BTN.toolDoubleTap, touches.count == 2)
        key(BTN.toolTripleTap, touches.count == 3)
        if let first = touches.first {
            abs(ABS.x, first.0)
            abs(ABS.y, first.1)
        }
    }
}
