import GestureCore
import GestureProtocol
import GestureTestSupport
import PropertyBased
import Testing

/// Random protocol-B streams (three fingers coming, moving a little or far, resting and
/// lifting, with the kernel's pointer emulation) through the pass-through filter under
/// random `app-fingers`, `app-long-press` and a reserved top edge: every clone frame must
/// be one libinput accepts and the keys' promises must hold.
@Suite("pass-through filter properties")
struct PassThroughPropertyTests {
    /// One random stream: the device's events and what the test needs to judge the clone.
    struct Stream {
        var script = EventScript()
        /// Per tracking id: its touch-down time, point and touch sequence.
        var downs: [Int32: (time: Timestamp, x: Int32, y: Int32, sequence: Int)] = [:]
        /// Per frame time: the device's touches (slot → touch) after that frame.
        var device: [Timestamp: [Int: EvdevReader.Touch]] = [:]
    }

    static let slots = 3

    static func stream(_ values: [Int]) -> Stream {
        var stream = Stream()
        var touches: [Int: EvdevReader.Touch] = [:]
        var order: [Int32] = []
        var nextID: Int32 = 1
        var sequence = 0
        func frame(_ change: SlotChange) {
            stream.script.frame([change], pointer: order.compactMap { id in touches.values.first { $0.id == id }.map { ($0.x!, $0.y!) } })
            stream.device[Timestamp(microseconds: stream.script.time - 10_000)] = touches
        }
        for value in values + (1...slots).map({ -$0 }) {
            let slot = value < 0 ? (slots + value % slots) % slots : value % slots
            let action = value < 0 ? 2 : value / slots % 5
            let x = Int32(1 + value / 16 % 999)  // never 0: a reader starts without values
            let y = Int32(1 + value / 16_000 % 499)
            stream.script.time += UInt64(value < 0 ? 0 : value % 37 * 1000)
            switch (action, touches[slot]) {
            case (0, nil), (1, nil):
                if touches.isEmpty { sequence += 1 }
                touches[slot] = .init(id: nextID, x: x, y: y)
                order.append(nextID)
                stream.downs[nextID] = (Timestamp(microseconds: stream.script.time), x, y, sequence)
                frame(.slot(Int32(slot), id: nextID, x: x, y: y))
                nextID += 1
            case (0, let touch?):
                touches[slot] = .init(id: touch.id, x: x, y: y)
                frame(.slot(Int32(slot), x: x, y: y))
            case (1, let touch?):
                // A small movement: within the tap's slop (3 mm = 30 units) or just beyond.
                let dx = Int32(value / 7 % 41) - 20
                let moved = max(1, min(999, touch.x! + dx))
                touches[slot] = .init(id: touch.id, x: moved, y: touch.y)
                frame(.slot(Int32(slot), x: moved))
            case (2, let touch?):
                touches[slot] = nil
                order.removeAll { $0 == touch.id }
                frame(.slot(Int32(slot), id: -1))
            case (3, _):
                stream.script.time += UInt64(200_000 + value % 500_000)  // a rest without frames
            default:
                break
            }
        }
        return stream
    }

    static let scripts = Gen.int(in: 0...9_999_999).array(of: 1...80)

    @Test func everyCloneFrameIsValidAndTheKeysHold() async {
        await propertyCheck(count: 400, input: Self.scripts, Gen.int(in: 0...17)) { values, which in
            let fingers = [nil, 1, 2][which % 3]
            let longPress: Bool? = which / 3 % 2 == 0 ? nil : false
            let edge = Rect(x: 0, y: 0, width: 1, height: 0.1)
            let reserved: [PassThroughPolicy.ReservedArea] = which / 6 % 3 == 2 ? [.init(name: "edge", rect: edge)] : []
            let stream = Self.stream(values)
            var run = PassThroughRun(
                PassThroughDevices.slotted, AppTouchFixtures.policy(fingers: fingers, longPress: longPress, reserved: reserved))
            run.feed(stream.script.events)
            let frames = run.reader.frames
            #expect(frames.count == run.frameTimes.count)
            var seenIDs: [Int: Set<Int32>] = [:]
            var gone: Set<Int32> = []
            var previous: Set<Int32> = []
            for (index, frame) in frames.enumerated() {
                let count = frame.slots.count
                // What libinput reads besides the slots agrees with them.
                #expect((frame.keys[BTN.touch] ?? 0 != 0) == (count > 0))
                #expect((frame.keys[BTN.toolFinger] ?? 0 != 0) == (count == 1))
                #expect((frame.keys[BTN.toolDoubleTap] ?? 0 != 0) == (count == 2))
                #expect((frame.keys[BTN.toolTripleTap] ?? 0 != 0) == (count == 3))
                if count > 0 {
                    #expect(
                        frame.slots.values.contains { $0.x == frame.axes[ABS.x] && $0.y == frame.axes[ABS.y] },
                        "the pointer is a touch shown")
                }
                let ids = Set(frame.slots.values.map(\.id))
                #expect(gone.isDisjoint(with: ids), "a touch never comes back to the clone after it left it")
                gone.formUnion(previous.subtracting(ids))
                let before = previous
                previous = ids
                let time = run.frameTimes[index]
                for (slot, touch) in frame.slots {
                    guard let down = stream.downs[touch.id] else {
                        Issue.record("the clone shows tracking id \(touch.id), which the device never had")
                        continue
                    }
                    seenIDs[down.sequence, default: []].insert(touch.id)
                    #expect(!reserved.contains { $0.rect.contains(Point(x: Double(down.x) / 1000, y: Double(down.y) / 500)) })
                    if longPress == false && !before.contains(touch.id) {
                        #expect(time - down.time < .milliseconds(500), "a touch first reaches the app before the long-press duration")
                    }
                    let isLastAtTime = index == frames.count - 1 || run.frameTimes[index + 1] != time
                    if isLastAtTime {
                        #expect(stream.device[time]?[slot] == touch, "a touch shown is where the device has it")
                    } else if longPress == false {
                        // A reveal frame: the revealed touch is at its touch-down point.
                        #expect(stream.device[time]?[slot] == touch || (touch.x == down.x && touch.y == down.y))
                    }
                }
            }
            if let fingers {
                #expect(seenIDs.values.allSatisfy { $0.count <= fingers }, "at most app-fingers touches of a sequence: \(seenIDs)")
            }
            if let last = frames.last {
                #expect(last.slots.isEmpty && (last.keys[BTN.touch] ?? 0) == 0, "every touch lifted on the clone")
            }
        }
    }
}
