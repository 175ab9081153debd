import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

@Suite("Pass-through filter: protocol B")
struct PassThroughSlottedTests {
    /// Two fingers tapping and dragging in the middle, one after the other and together.
    static func middleStream() -> EventScript {
        var s = EventScript()
        s.frame([.slot(0, id: 10, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, id: nil, x: 510, y: 260)], pointer: [(510, 260)])
        s.frame([.slot(1, id: 11, x: 700, y: 300)], pointer: [(510, 260), (700, 300)])
        s.frame([.slot(0, x: 520), .slot(1, y: 310)], pointer: [(520, 260), (700, 310)])
        s.frame([.slot(0, id: -1)], pointer: [(700, 310)])
        s.frame([.slot(1, id: -1)], pointer: [])
        s.frame([.slot(0, id: 12, x: 520, y: 260)], pointer: [(520, 260)])
        s.frame([.slot(0, id: -1)], pointer: [])
        return s
    }

    @Test func withoutReservedTouchesTheCloneReadsAsTheDevice() {
        for policy in [PassThroughPolicy(), PassThroughDevices.topEdge] {
            let script = Self.middleStream()
            var run = PassThroughRun(PassThroughDevices.slotted, policy)
            run.feed(script.events)
            var original = EvdevReader()
            original.read(script.events)
            #expect(run.reader.frames == original.frames)
            #expect(run.cloneFrames == 8)
        }
    }

    /// libinput 1.22 drops a finger whose frame names its tool after its tracking id when the
    /// slot's last contact was a palm: the clone names a new touch's tool first. Fails on the
    /// filter that wrote the id first.
    @Test func aNewTouchsToolTypeGoesBeforeItsTrackingID() {
        var s = EventScript()
        s.slot(0, id: 10, x: 500, y: 250)
        s.abs(ABS.mtToolType, MTTool.palm)
        s.report()
        s.frame([.slot(0, id: -1)])
        s.slot(0, id: 11, x: 520, y: 260)
        s.abs(ABS.mtToolType, MTTool.finger)
        s.report()
        var run = PassThroughRun(Devices.slotted(slots: 2, toolType: true), PassThroughPolicy())
        run.feed(s.events)
        let finger = run.output.firstIndex { $0.type == EV.abs && $0.code == ABS.mtTrackingID && $0.value == 11 }
        let tool = run.output.lastIndex { $0.type == EV.abs && $0.code == ABS.mtToolType && $0.value == MTTool.finger }
        #expect(finger != nil && tool != nil && tool! < finger!)
        var original = EvdevReader()
        original.read(s.events)
        #expect(run.reader.frames == original.frames)
    }

    @Test func aTouchStartingInTheReservedRegionNeverReachesTheClone() {
        var s = EventScript()
        // slot 0: the middle finger; slot 1: an edge swipe down from the top edge.
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(1, id: 2, x: 300, y: 20)], pointer: [(500, 250), (300, 20)])
        s.frame([.slot(1, y: 150)])
        s.frame([.slot(1, y: 400), .slot(0, x: 520)], pointer: [(520, 250), (300, 400)])
        s.frame([.slot(0, id: -1)], pointer: [(300, 400)])
        s.frame([.slot(1, id: -1)], pointer: [])
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughDevices.topEdge)
        run.feed(s.events)
        let frames = run.reader.frames
        for frame in frames {
            #expect(frame.slots[1] == nil, "the reserved slot stays empty")
            #expect(frame.keys[BTN.toolDoubleTap] ?? 0 == 0, "finger counts describe passed touches only")
        }
        #expect(!run.output.contains { $0.code == ABS.mtTrackingID && $0.value == 2 })
        #expect(
            !run.output.contains {
                ($0.code == ABS.mtPositionY || $0.code == ABS.y) && ($0.value == 20 || $0.value == 150 || $0.value == 400)
            })
        // The middle finger: down, moved, lifted, with its coordinates; the pointer is it.
        #expect(frames[0].slots[0] == .init(id: 1, x: 500, y: 250))
        #expect(frames[0].keys[BTN.touch] == 1 && frames[0].keys[BTN.toolFinger] == 1)
        #expect(frames[1].slots[0] == .init(id: 1, x: 520, y: 250))
        #expect(frames[1].axes[ABS.x] == 520)
        // The frame in which only the reserved touch moved writes nothing; the lift of the
        // middle finger lifts BTN_TOUCH although the device still has a touch down.
        #expect(run.cloneFrames == 3)
        #expect(frames.last?.keys[BTN.touch] == 0 && frames.last?.slots.isEmpty == true)
        #expect(!run.filter.holdsReservedTouch)
    }

    @Test func reservationIsDecidedAtTouchDown() {
        var s = EventScript()
        // Starts in the middle, moves into the reserved edge: passes all along.
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, y: 10)], pointer: [(500, 10)])
        s.frame([.slot(0, id: -1)], pointer: [])
        // Starts in the edge, moves out into the middle: reserved until its lift.
        s.frame([.slot(0, id: 2, x: 500, y: 10)], pointer: [(500, 10)])
        s.frame([.slot(0, y: 300)], pointer: [(500, 300)])
        s.frame([.slot(0, id: -1)], pointer: [])
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughDevices.topEdge)
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(frames.map(\.slots[0]) == [.init(id: 1, x: 500, y: 250), .init(id: 1, x: 500, y: 10), nil])
        #expect(!run.output.contains { $0.code == ABS.mtTrackingID && $0.value == 2 })
    }

    @Test func aReloadLeavesTouchesInFlightWithTheirDecision() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 20)], pointer: [(500, 20)])  // reserved
        s.frame([.slot(1, id: 2, x: 500, y: 250)], pointer: [(500, 20), (500, 250)])  // passes
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughDevices.topEdge)
        run.feed(s.events)
        s.events = []
        // The reload moves the reserved region to the middle band.
        run.filter.reconfigure(PassThroughPolicy(reserved: [.init(name: "band", rect: Rect(x: 0, y: 0.4, width: 1, height: 0.2))]))
        s.frame([.slot(0, y: 30), .slot(1, y: 260)], pointer: [(500, 30), (500, 260)])
        s.frame([.slot(0, id: -1)], pointer: [(500, 260)])
        s.frame([.slot(0, id: 3, x: 100, y: 20)], pointer: [(500, 260), (100, 20)])  // edge: passes now
        s.frame([.slot(2, id: 4, x: 900, y: 250)])  // band: reserved now
        run.feed(s.events)
        let last = run.reader.frames.last
        #expect(last?.slots[0] == .init(id: 3, x: 100, y: 20))
        #expect(last?.slots[1] == .init(id: 2, x: 500, y: 260))
        #expect(last?.slots[2] == nil)
        #expect(!run.output.contains { $0.code == ABS.mtTrackingID && ($0.value == 1 || $0.value == 4) })
    }

    /// libevdev's delivery of an overflow (EvdevDevice): `SYN_DROPPED`, `SYN_REPORT`, then the
    /// state delta as one frame.
    @Test func afterSynDroppedTheCloneShowsTheVisibleTouches() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])  // passes
        s.frame([.slot(1, id: 2, x: 300, y: 20)])  // reserved
        // A partial frame, then the overflow: none of it may reach the clone.
        s.slot(0, x: 999)
        s.syn(SYN.dropped)
        s.report()  // libevdev closes the discarded frame at once
        // Meanwhile: finger 1 lifted, finger 2 went on, finger 3 began in the middle and
        // finger 4 began in the reserved edge.
        s.frame(
            [.slot(0, id: -1), .slot(2, id: 3, x: 600, y: 300), .slot(3, id: 4, x: 800, y: 30), .slot(1, y: 200)], pointer: [(600, 300)])
        s.frame([.slot(2, x: 610)])
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughDevices.topEdge)
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(!run.output.contains { $0.value == 999 })
        #expect(frames.last?.slots == [2: .init(id: 3, x: 610, y: 300)])
        #expect(frames.last?.keys[BTN.touch] == 1 && frames.last?.keys[BTN.toolFinger] == 1)
        #expect(run.filter.holdsReservedTouch)
    }

    @Test func finishLiftsEveryTouchOnTheCloneAndEndsTheFilter() {
        var s = EventScript()
        s.frame(
            [.slot(0, id: 1, x: 500, y: 250), .slot(1, id: 2, x: 600, y: 250), .slot(2, id: 3, x: 600, y: 10)],
            pointer: [(500, 250), (600, 250)])
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughDevices.topEdge)
        run.feed(s.events)
        #expect(run.reader.frames.last?.slots.count == 2)
        run.finish()
        let last = run.reader.frames.last
        #expect(last?.slots.isEmpty == true)
        #expect(last?.keys.values.allSatisfy { $0 == 0 } == true)
        // Nothing after finish, not even a second finish.
        let before = run.output
        s.events = []
        s.frame([.slot(0, x: 510)])
        run.feed(s.events)
        run.finish()
        #expect(run.output == before)
    }

    /// Created for a device already open (daemon start, a reload turning pass-through on):
    /// the kernel does not send axes again that did not change, so a new touch at the last
    /// touch's place arrives as a tracking id alone. Decided from the device's state, it is
    /// where it is (the middle), not at (0, 0) in the reserved corner; a touch already down
    /// reaches the new clone at the first frame.
    @Test func aFilterForAnOpenDeviceStartsFromItsState() {
        let current = EvdevSnapshot(
            slots: [
                [ABS.mtTrackingID: -1, ABS.mtPositionX: 500, ABS.mtPositionY: 250],
                [ABS.mtTrackingID: 7, ABS.mtPositionX: 800, ABS.mtPositionY: 300],
            ],
            axes: [ABS.x: 800, ABS.y: 300], keys: [BTN.touch: 1, BTN.toolFinger: 1])
        let corner = PassThroughPolicy(reserved: [.init(name: "corner", rect: Rect(x: 0, y: 0, width: 0.1, height: 0.1))])
        var s = EventScript()
        s.frame([.slot(0, id: 8)], pointer: [(800, 300), (500, 250)])
        var seeded = PassThroughRun(PassThroughDevices.slotted, corner, current: current)
        seeded.feed(s.events)
        #expect(seeded.reader.frames.last?.slots == [0: .init(id: 8, x: 500, y: 250), 1: .init(id: 7, x: 800, y: 300)])
        var unseeded = PassThroughRun(PassThroughDevices.slotted, corner)
        unseeded.feed(s.events)
        #expect(unseeded.reader.frames.last?.slots[0] == nil, "without the device's state the touch seems to be at (0, 0)")
    }

    @Test func eventsWithoutStateGoWithTheirFrame() {
        var s = EventScript()
        s.events.append(InputEvent(time: Timestamp(microseconds: s.time), type: EV.msc, code: 5, value: 1234))
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy())
        run.feed(s.events)
        #expect(run.output.contains { $0.type == EV.msc && $0.value == 1234 })
    }
}
