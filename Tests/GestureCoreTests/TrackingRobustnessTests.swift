import GestureCore
import GestureProtocol
import Testing

/// SplitMix64: a deterministic generator so that every run feeds the same "random" streams.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("ContactTracker: robustness")
struct TrackingRobustnessTests {
    @Test func garbageSlotsCodesValuesAndTimes() {
        var tracker = ContactTracker(device: Devices.slotted(slots: 2))
        let events: [InputEvent] = [
            InputEvent(time: 50, type: EV.abs, code: ABS.mtSlot, value: 7),  // outside the range
            InputEvent(time: 50, type: EV.abs, code: ABS.mtTrackingID, value: 3),
            InputEvent(time: 50, type: EV.abs, code: ABS.mtPositionX, value: Int32.max),
            InputEvent(time: 50, type: EV.abs, code: ABS.mtSlot, value: -1),
            InputEvent(time: 50, type: EV.abs, code: ABS.mtPositionX, value: Int32.min),
            InputEvent(time: 50, type: EV.abs, code: 0xFFFF, value: -5),
            InputEvent(time: 50, type: 0xFFFF, code: 0xFFFF, value: 1),
            InputEvent(time: 50, type: EV.key, code: 0xFFFF, value: Int32.min),
            InputEvent(time: 50, type: EV.syn, code: 0xFF, value: 0),
            InputEvent(time: 50, type: EV.syn, code: SYN.report, value: 0),
            InputEvent(time: 90, type: EV.abs, code: ABS.mtSlot, value: 1),
            InputEvent(time: 90, type: EV.abs, code: ABS.mtTrackingID, value: Int32.max),
            InputEvent(time: 90, type: EV.abs, code: ABS.mtPositionX, value: Int32.min),
            InputEvent(time: 90, type: EV.abs, code: ABS.mtPositionY, value: Int32.max),
            InputEvent(time: 90, type: EV.syn, code: SYN.report, value: 0),
            InputEvent(time: 10, type: EV.abs, code: ABS.mtPositionX, value: 5),  // time goes backwards
            InputEvent(time: 10, type: EV.syn, code: SYN.report, value: 0),
        ]
        let frames = tracker.frames(events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .moved)]])
        #expect(frames.map(\.time) == [90, 90])
        #expect(frames.flatMap(\.contacts).allSatisfy { $0.location.x.isFinite && $0.millimetres.y.isFinite })
    }

    @Test func absurdSlotCountIsCapped() {
        var device = Devices.slotted()
        device.absInfo[ABS.mtSlot] = AbsInfo(minimum: 0, maximum: Int32.max)
        var tracker = ContactTracker(device: device)
        var s = EventScript()
        s.slot(255, id: 1, x: 1, y: 1)
        s.slot(256, id: 2, x: 1, y: 1)  // beyond the cap: ignored
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.map(\.summary) == [[touchState(1, .began)]])
    }

    /// Random streams over every device kind: never a crash, never NaN, ids increase, every
    /// contact id follows began → moved* → (ended | cancelled), frame times never decrease.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func randomStreamsKeepTheInvariants(seed: UInt64) {
        var random = SplitMix(state: seed)
        let devices = [
            Devices.slotted(slots: 4, toolType: true), Devices.unslotted(), Devices.unslotted(trackingIDs: true),
            Devices.singleTouch(keys: [BTN.touch, BTN.toolPen]), Devices.semiMTTouchpad(),
        ]
        let device = devices[Int(seed) % devices.count]
        var tracker = ContactTracker(device: device, geometry: DeviceGeometry(rotation: Rotation.allCases[Int(seed) % 4]))
        let codes: [(UInt16, UInt16)] = [
            (EV.abs, ABS.mtSlot), (EV.abs, ABS.mtTrackingID), (EV.abs, ABS.mtPositionX), (EV.abs, ABS.mtPositionY),
            (EV.abs, ABS.mtToolType), (EV.abs, ABS.x), (EV.abs, ABS.y), (EV.key, BTN.touch), (EV.key, BTN.toolFinger),
            (EV.key, BTN.toolTripleTap), (EV.key, BTN.toolPen), (EV.syn, SYN.mtReport), (EV.syn, SYN.report),
            (EV.syn, SYN.report), (EV.syn, SYN.dropped),
        ]
        var phases: [UInt32: TouchPhase] = [:]
        var highestID: UInt32 = 0
        var lastTime = Timestamp.zero
        var time: UInt64 = 1000
        var framesSeen = 0
        for step in 0..<20_000 {
            let (type, code) = codes[Int(random.next() % UInt64(codes.count))]
            let value: Int32 =
                switch random.next() % 4 {
                case 0: Int32(truncatingIfNeeded: random.next())
                case 1: -1
                default: Int32(random.next() % 8)
                }
            time = random.next() % 10 == 0 ? time &- 500 : time &+ 100  // sometimes backwards
            if step == 15_000 {
                if tracker.cancelAll(at: Timestamp(microseconds: time)) { check(tracker.frame) }
                continue
            }
            if tracker.feed(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value)) { check(tracker.frame) }
        }

        // Only contact changes make frames on touchscreens (BTN_TOOL_* counts are a touchpad
        // thing), so a random stream yields a few dozen of them; fewer would mean the stream
        // no longer reaches the tracker's frame logic at all.
        #expect(framesSeen > 40, "the stream must exercise the tracker")

        func check(_ frame: TouchFrame) {
            framesSeen += 1
            #expect(frame.time >= lastTime)
            lastTime = frame.time
            #expect(Set(frame.contacts.map(\.id)).count == frame.contacts.count)
            #expect(frame.fingerCount >= frame.contacts.filter { $0.phase == .began || $0.phase == .moved }.count)
            for contact in frame.contacts {
                #expect(contact.location.x.isFinite && contact.location.y.isFinite)
                #expect(contact.millimetres.x.isFinite && contact.millimetres.y.isFinite)
                let previous = phases[contact.id]
                switch contact.phase {
                case .began:
                    #expect(previous == nil && contact.id > highestID)
                    highestID = contact.id
                case .moved:
                    #expect(previous == .began || previous == .moved)
                case .ended:
                    // An unseen id arriving `.ended` is a touch that began and ended in one frame.
                    #expect(previous == .began || previous == .moved || (previous == nil && contact.id > highestID))
                    highestID = max(highestID, contact.id)
                case .cancelled:
                    #expect(previous == .began || previous == .moved)
                }
                phases[contact.id] = contact.phase
            }
            // Contacts down must all appear in every frame until they end.
            let down = Set(phases.filter { $0.value == .began || $0.value == .moved }.keys)
            #expect(down.isSubset(of: Set(frame.contacts.map(\.id))) || frame.contacts.allSatisfy { $0.phase == .cancelled })
        }
    }

    /// The frame's contact storage is reused: once warm, its buffer never moves.
    @Test func steadyStateReusesTheContactBuffer() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.slot(1, id: 2, x: 200, y: 100)
        s.report()
        _ = tracker.frames(s.events)
        let buffer = tracker.frame.contacts.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for step in Int32(0)..<1000 {
            _ = tracker.feed(InputEvent(time: 2_000_000, type: EV.abs, code: ABS.mtSlot, value: step % 2))
            _ = tracker.feed(InputEvent(time: 2_000_000, type: EV.abs, code: ABS.mtPositionX, value: step))
            let completed = tracker.feed(InputEvent(time: 2_000_000, type: EV.syn, code: SYN.report, value: 0))
            #expect(completed)
            let now = tracker.frame.contacts.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            if now != buffer {
                Issue.record("contact buffer reallocated at step \(step)")
                return
            }
        }
    }
}
