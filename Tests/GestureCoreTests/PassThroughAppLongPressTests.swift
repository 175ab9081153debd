import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

@Suite("Pass-through filter: app-long-press")
struct PassThroughAppLongPressTests {
    static let policy = AppTouchFixtures.policy(longPress: false)

    /// A tap: nothing while it is down, then at its lift a frame with it down at its
    /// touch-down point and a frame with it lifted.
    @Test func aTapReachesTheAppAtItsLiftAtItsTouchDownPoint() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, x: 510, y: 255)], pointer: [(510, 255)])  // 1.1 mm: within the slop
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        run.feed(s.events)
        #expect(run.output.isEmpty, "the app sees nothing before the lift")
        s.events = []
        s.frame([.slot(0, id: -1)], pointer: [])
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(frames.count == 2)
        #expect(frames.first?.slots == [0: .init(id: 1, x: 500, y: 250)])
        #expect(frames.first?.keys[BTN.touch] == 1 && frames.first?.keys[BTN.toolFinger] == 1)
        #expect(frames.first?.axes[ABS.x] == 500 && frames.first?.axes[ABS.y] == 250)
        #expect(frames.last?.slots.isEmpty == true && frames.last?.keys[BTN.touch] == 0)
    }

    /// A drag: revealed at its first movement beyond the slop, down where it touched down,
    /// then where it is; from then on frame for frame.
    @Test func aDragReachesTheAppAtItsFirstMovementFromItsTouchDownPoint() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, x: 520)], pointer: [(520, 250)])
        s.frame([.slot(0, x: 540)], pointer: [(540, 250)])  // 4 mm
        s.frame([.slot(0, x: 560)], pointer: [(560, 250)])
        s.frame([.slot(0, id: -1)], pointer: [])
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(frames.map(\.slots[0]) == [.init(id: 1, x: 500, y: 250), .init(id: 1, x: 540, y: 250), .init(id: 1, x: 560, y: 250), nil])
        #expect(frames.map { $0.axes[ABS.x] } == [500, 540, 560, 560])
        #expect(run.frameTimes.first == run.frameTimes.dropFirst().first, "the reveal and the movement go out together")
    }

    /// A touch still within the slop at the first frame past the duration rested: it never
    /// reaches the app, whether it then moves or only lifts, and whatever frame shows the
    /// time (its own movement, another finger's).
    @Test func aTouchThatRestsPastTheDurationNeverReachesTheApp() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        s.time += 600_000
        s.frame([.slot(0, x: 600)], pointer: [(600, 250)])  // moves only after resting
        s.frame([.slot(0, id: -1)], pointer: [])
        s.frame([.slot(0, id: 2, x: 500, y: 250)], pointer: [(500, 250)])
        s.time += 700_000  // no frame at all while it rests
        s.frame([.slot(0, id: -1)], pointer: [])
        s.frame([.slot(0, id: 3, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, id: -1)], pointer: [])  // a tap
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        run.feed(s.events)
        #expect(AppTouchFixtures.cloneIDs(run) == [3])
        #expect(!run.filter.holdsReservedTouch)
    }

    /// A second finger while the first is held: each is revealed on its own; the pointer
    /// emulation follows the touches shown.
    @Test func heldTouchesAreRevealedEachOnItsOwn() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 300, y: 250)], pointer: [(300, 250)])
        s.frame([.slot(1, id: 2, x: 700, y: 250)], pointer: [(300, 250), (700, 250)])
        s.frame([.slot(1, x: 750)], pointer: [(300, 250), (750, 250)])  // the second drags
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        run.feed(s.events)
        var frames = run.reader.frames
        #expect(frames.map(\.slots) == [[1: .init(id: 2, x: 700, y: 250)], [1: .init(id: 2, x: 750, y: 250)]])
        #expect(frames.last?.axes[ABS.x] == 750 && frames.last?.keys[BTN.toolFinger] == 1)
        s.events = []
        s.frame([.slot(0, id: -1)], pointer: [(750, 250)])  // the first taps
        run.feed(s.events)
        frames = run.reader.frames
        #expect(
            frames.suffix(2).map(\.slots) == [
                [0: .init(id: 1, x: 300, y: 250), 1: .init(id: 2, x: 750, y: 250)], [1: .init(id: 2, x: 750, y: 250)],
            ])
        #expect(frames.suffix(2).map { $0.keys[BTN.toolDoubleTap] } == [1, 0])
    }

    /// libevdev's resync after an overflow is a frame like any other: a held touch that
    /// moved far meanwhile is revealed from its touch-down point, one that began meanwhile is
    /// held, and the partial frame never reaches the clone.
    @Test func afterSynDroppedAHeldTouchIsRevealedFromItsTouchDownPoint() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 250)], pointer: [(500, 250)])
        s.slot(0, x: 999)
        s.syn(SYN.dropped)
        s.report()
        s.frame([.slot(0, x: 700), .slot(1, id: 2, x: 300, y: 300)], pointer: [(700, 250), (300, 300)])
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy)
        run.feed(s.events)
        #expect(!run.output.contains { $0.value == 999 })
        #expect(run.reader.frames.map(\.slots) == [[0: .init(id: 1, x: 500, y: 250)], [0: .init(id: 1, x: 700, y: 250)]])
        #expect(run.reader.frames.last?.keys[BTN.toolFinger] == 1 && run.reader.frames.last?.axes[ABS.x] == 700)
    }

    @Test func singleTouchTapAndRest() {
        var s = EventScript()
        s.abs(ABS.x, 2000)
        s.abs(ABS.y, 2000)
        s.key(BTN.touch, true)
        s.report()
        s.abs(ABS.x, 2005)
        s.report()
        s.key(BTN.touch, false)
        s.report()  // a tap
        s.key(BTN.touch, true)
        s.report()
        s.time += 600_000
        s.key(BTN.touch, false)
        s.report()  // rested
        var run = PassThroughRun(Devices.singleTouch(), PassThroughPolicy(app: AppTouchPolicy(device: AppTouchSettings(longPress: false))))
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(frames.map { $0.keys[BTN.touch] } == [1, 0])
        #expect(frames.first?.axes == [ABS.x: 2000, ABS.y: 2000])
    }

    @Test func protocolADragIsRevealedFromItsTouchDownPoint() {
        var s = EventScript()
        s.contact(x: 4800, y: 3600)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 6000, y: 3600)
        s.report()
        s.key(BTN.touch, false)
        s.report()
        var run = PassThroughRun(Devices.unslotted(), PassThroughPolicy(app: AppTouchPolicy(device: AppTouchSettings(longPress: false))))
        run.feed(s.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(run.output)
        #expect(reader.frames.map(\.contacts) == [[[4800, 3600]], [[6000, 3600]], []])
    }

    /// With app-fingers = 1 too, a held touch that rests still used the sequence's finger.
    @Test func aHeldTouchCountsAsTheSequencesFinger() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 300, y: 250)])
        s.frame([.slot(1, id: 2, x: 700, y: 250)])
        s.frame([.slot(1, x: 800)])
        s.frame([.slot(0, id: -1), .slot(1, id: -1)])
        var run = PassThroughRun(PassThroughDevices.slotted, AppTouchFixtures.policy(fingers: 1, longPress: false))
        run.feed(s.events)
        #expect(AppTouchFixtures.cloneIDs(run) == [1])
    }
}
