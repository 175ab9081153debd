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

    init(_ device: DeviceDescription, _ policy: PassThroughPolicy, current: EvdevSnapshot? = nil) {
        filter = PassThroughFilter(device: device, policy: policy, current: current)
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

@Suite("Pass-through filter: protocol A, single touch")
struct PassThroughOtherProtocolTests {
    static let unslottedEdge = PassThroughPolicy(reserved: [.init(name: "edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.1))])

    @Test func protocolAReservedContactIsLeftOutOfEveryList() {
        var s = EventScript()
        s.contact(x: 4800, y: 3600)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 4810, y: 3600)
        s.contact(x: 1000, y: 300)
        s.report()  // second: reserved (y < 720)
        s.contact(x: 4820, y: 3600)
        s.contact(x: 1000, y: 2000)
        s.report()  // it moves out: still reserved
        s.contact(x: 1000, y: 2500)
        s.report()  // the middle one lifted
        s.key(BTN.touch, false)
        s.report()  // all lifted
        s.contact(x: 5000, y: 5000)
        s.key(BTN.touch, true)
        s.report()  // a new one passes
        var run = PassThroughRun(Devices.unslotted(), Self.unslottedEdge)
        run.feed(s.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(run.output)
        #expect(reader.frames.map(\.contacts) == [[[4800, 3600]], [[4810, 3600]], [[4820, 3600]], [], [[5000, 5000]]])
        #expect(reader.frames.map { $0.keys[BTN.touch] } == [1, 1, 1, 0, 1])
    }

    @Test func protocolAResyncDeltaKeepsTheContacts() {
        var s = EventScript()
        s.contact(x: 1000, y: 300)
        s.contact(x: 4800, y: 3600)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 1000, y: 300)
        s.syn(SYN.dropped)
        s.report()
        s.abs(ABS.x, 1000)
        s.report()  // libevdev's delta: no lists
        s.contact(x: 1000, y: 320)
        s.contact(x: 4800, y: 3610)
        s.report()
        var run = PassThroughRun(Devices.unslotted(), Self.unslottedEdge)
        run.feed(s.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(run.output)
        #expect(reader.frames.last?.contacts == [[4800, 3610]])
        #expect(!run.output.contains { $0.code == ABS.mtPositionX && $0.value == 1000 })
    }

    @Test func singleTouchReservedTouchLeavesNoTrace() {
        var s = EventScript()
        s.abs(ABS.x, 2000)
        s.abs(ABS.y, 100)
        s.key(BTN.touch, true)
        s.report()  // reserved (y < 409)
        s.abs(ABS.y, 2000)
        s.report()
        s.key(BTN.touch, false)
        s.report()
        s.abs(ABS.x, 3000)
        s.abs(ABS.y, 3000)
        s.key(BTN.touch, true)
        s.report()  // passes
        s.key(BTN.touch, false)
        s.report()
        var run = PassThroughRun(Devices.singleTouch(), Self.unslottedEdge)
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(frames.map { $0.keys[BTN.touch] } == [1, 0])
        #expect(frames.first?.axes == [ABS.x: 3000, ABS.y: 3000])
        #expect(!run.output.contains { $0.value == 2000 || $0.value == 100 })
    }
}

@Suite("Pass-through filter: wake-swallow")
struct PassThroughWakeTests {
    static func tap(_ s: inout EventScript, id: Int32) {
        s.frame([.slot(0, id: id, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, id: -1)], pointer: [])
    }

    @Test func theFirstTouchAfterIdleIsSwallowed() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: true))
        var s = EventScript()
        Self.tap(&s, id: 1)
        run.feed(s.events)
        run.filter.idle()
        run.filter.idle()  // twice idle is still one wake touch
        s.events = []
        Self.tap(&s, id: 2)
        Self.tap(&s, id: 3)
        run.feed(s.events)
        let ids = run.output.filter { $0.code == ABS.mtTrackingID && $0.value >= 0 }.map(\.value)
        #expect(ids == [1, 3])
    }

    @Test func withoutWakeSwallowIdleChangesNothing() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: false))
        run.filter.idle()
        var s = EventScript()
        Self.tap(&s, id: 1)
        run.feed(s.events)
        #expect(run.output.contains { $0.code == ABS.mtTrackingID && $0.value == 1 })
    }

    @Test func turningWakeSwallowOffByReloadDisarmsIt() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: true))
        run.filter.idle()
        run.filter.reconfigure(PassThroughPolicy(wakeSwallow: false))
        var s = EventScript()
        Self.tap(&s, id: 1)
        run.feed(s.events)
        #expect(run.output.contains { $0.code == ABS.mtTrackingID && $0.value == 1 })
    }
}

@Suite("Pass-through filter: wake-swallow with the display's power")
struct PassThroughDisplayWakeTests {
    static let guardTime = TimeSpan.milliseconds(300)
    static let policy = PassThroughPolicy(wakeSwallow: true, wakeGuard: guardTime)

    /// Feeds `events` as the daemon does: at each `SYN_REPORT`, when the filter asks for
    /// the display's power, it is told `power`. Returns whether it asked, per frame.
    @discardableResult
    static func feed(_ run: inout PassThroughRun, _ events: [InputEvent], power: DisplayPower) -> [Bool] {
        var asked: [Bool] = []
        for event in events {
            if event.type == EV.syn && event.code == SYN.report {
                asked.append(run.filter.wantsDisplayPower)
                if run.filter.wantsDisplayPower { run.filter.displayPower(power) }
            }
            run.feed([event])
        }
        return asked
    }

    /// A tap whose touch-down frame is at `s.time`, with the display read as `power`.
    static func tap(_ run: inout PassThroughRun, _ s: inout EventScript, id: Int32, power: DisplayPower, asked: inout [Bool]) {
        s.events = []
        s.frame([.slot(0, id: id, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, id: -1)], pointer: [])
        asked += feed(&run, s.events, power: power)
    }

    static func passedIDs(_ run: PassThroughRun) -> [Int32] {
        run.output.filter { $0.code == ABS.mtTrackingID && $0.value >= 0 }.map(\.value)
    }

    @Test func touchesWhileTheDisplayIsOffAreSwallowedAndTheGuardEndsOnTheFrameClock() {
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        var asked: [Bool] = []
        Self.tap(&run, &s, id: 1, power: .off, asked: &asked)
        Self.tap(&run, &s, id: 2, power: .off, asked: &asked)
        // The display came back at 1.5 s: a tap 299 ms later still belongs to the wake, one
        // at 300 ms does not.
        let back = Timestamp(microseconds: 1_500_000)
        s.time = (back + .milliseconds(299)).microseconds
        Self.tap(&run, &s, id: 3, power: .on(since: back), asked: &asked)
        s.time = (back + Self.guardTime).microseconds
        Self.tap(&run, &s, id: 4, power: .on(since: back), asked: &asked)
        #expect(Self.passedIDs(run) == [4])
        #expect(run.filter.wakeTouchCount == 3, "each swallowed touch is told to the compositor")
        // Asked only for the frames that begin a touch, never for the lifts.
        #expect(asked == [true, false, true, false, true, false, true, false])
        // The clone shows a valid frame for the passed tap only.
        #expect(run.reader.frames.map { $0.keys[BTN.touch] } == [1, 0])
    }

    @Test func aDisplayNeverSeenOffAndAnUnknownOneSwallowNothing() {
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        var asked: [Bool] = []
        Self.tap(&run, &s, id: 1, power: .on(since: nil), asked: &asked)
        Self.tap(&run, &s, id: 2, power: .unknown, asked: &asked)
        #expect(Self.passedIDs(run) == [1, 2])
        #expect(run.filter.wakeTouchCount == 0)
    }

    @Test func withoutWakeSwallowTheDisplayIsNeitherAskedNorObeyed() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: false, wakeGuard: Self.guardTime))
        var s = EventScript()
        var asked: [Bool] = []
        run.filter.displayPower(.off)
        Self.tap(&run, &s, id: 1, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [1])
        #expect(asked == [false, false])
    }

    @Test func theDaemonsIdleArmsTheFirstTouchOnlyWhenTheDisplaysPowerIsUnknown() {
        // A lit display that can be read decides: the first touch after idle is the visitor's.
        var lit = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        var asked: [Bool] = []
        lit.filter.idle()
        Self.tap(&lit, &s, id: 1, power: .on(since: nil), asked: &asked)
        #expect(Self.passedIDs(lit) == [1])
        #expect(lit.filter.wakeTouchCount == 0)
        // Nothing to read: the idle period is all there is to go by.
        var unreadable = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        unreadable.filter.idle()
        Self.tap(&unreadable, &s, id: 2, power: .unknown, asked: &asked)
        Self.tap(&unreadable, &s, id: 3, power: .unknown, asked: &asked)
        #expect(Self.passedIDs(unreadable) == [3])
        #expect(unreadable.filter.wakeTouchCount == 1)
    }

    @Test func aDisplayStillOffAfterTheWakeConfirmationFailsSafe() {
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        var asked: [Bool] = []
        let wake = Timestamp(microseconds: s.time)
        Self.tap(&run, &s, id: 1, power: .off, asked: &asked)
        #expect(run.filter.wakeSignal == .sent(at: wake))
        // Still dark just inside the confirmation: the same wake, swallowed.
        s.time = (wake + PassThroughFilter.wakeConfirmation - .microseconds(1)).microseconds
        Self.tap(&run, &s, id: 2, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [])
        // Still dark at the confirmation: the compositor did not wake; this touch and the
        // next reach the app, and each is counted for the log.
        s.time = (wake + PassThroughFilter.wakeConfirmation).microseconds
        Self.tap(&run, &s, id: 3, power: .off, asked: &asked)
        Self.tap(&run, &s, id: 4, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [3, 4])
        #expect(run.filter.wakeSignal == .unavailable(.displayStayedOff(PassThroughFilter.wakeConfirmation)))
        #expect(run.filter.wakeTouchCount == 2)
        #expect(run.filter.forwardedWakeTouchCount == 2)
        // A reload tries the signal again.
        run.filter.reconfigure(Self.policy)
        #expect(run.filter.wakeSignal == .ready)
        Self.tap(&run, &s, id: 5, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [3, 4])
    }

    @Test func theDisplayBackOnConfirmsTheWakeForTheNextBlank() {
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        var asked: [Bool] = []
        Self.tap(&run, &s, id: 1, power: .off, asked: &asked)
        let back = Timestamp(microseconds: s.time + 500_000)
        s.time = (back + Self.guardTime).microseconds
        Self.tap(&run, &s, id: 2, power: .on(since: back), asked: &asked)
        #expect(run.filter.wakeSignal == .ready)
        // Blanked again much later: the first touch on the dark display is swallowed again.
        s.time += 600_000_000
        Self.tap(&run, &s, id: 3, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [2])
        #expect(run.filter.forwardedWakeTouchCount == 0)
    }

    @Test func withoutAWakeKeyTouchesOnADarkDisplayAreForwarded() {
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        run.filter.wakeSignalUnavailable(.noWakeKey)
        var s = EventScript()
        var asked: [Bool] = []
        Self.tap(&run, &s, id: 1, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [1])
        #expect(run.filter.forwardedWakeTouchCount == 1)
        // A reload does not make a missing key appear: the daemon tells the filter again.
        run.filter.reconfigure(Self.policy)
        #expect(run.filter.wakeSignal == .unavailable(.noWakeKey))
    }

    @Test func aTouchDownWhenTheDisplayGoesOffKeepsItsDecision() {
        // Passed while the display is on; the display goes off with the finger down; a
        // second finger then lands and is swallowed, the first stays on the clone to its lift.
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 100, y: 100)], pointer: [(100, 100)])
        #expect(Self.feed(&run, s.events, power: .on(since: nil)) == [true])
        s.events = []
        s.frame([.slot(1, id: 2, x: 800, y: 400)], pointer: [(100, 100), (800, 400)])
        #expect(Self.feed(&run, s.events, power: .off) == [true])
        s.events = []
        s.frame([.slot(0, x: 120, y: 110)], pointer: [(120, 110), (800, 400)])
        s.frame([.slot(0, id: -1), .slot(1, id: -1)], pointer: [])
        #expect(Self.feed(&run, s.events, power: .off) == [false, false])
        let frames = run.reader.frames
        #expect(frames.map { $0.slots.keys.sorted() } == [[0], [0], []])
        #expect(frames.map { $0.keys[BTN.touch] } == [1, 1, 0])
        #expect(frames.map { $0.keys[BTN.toolFinger] } == [1, 1, 0], "one finger on the clone throughout")
        #expect(!run.output.contains { $0.value == 800 || $0.value == 400 }, "nothing of the swallowed touch")
    }

    @Test func turningWakeSwallowOffByReloadStopsSwallowingInTheGuard() {
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        var s = EventScript()
        var asked: [Bool] = []
        run.filter.displayPower(.on(since: Timestamp(microseconds: s.time)))
        run.filter.reconfigure(PassThroughPolicy(wakeSwallow: false))
        Self.tap(&run, &s, id: 1, power: .off, asked: &asked)
        #expect(Self.passedIDs(run) == [1])
    }
}
