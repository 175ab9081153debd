import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

@Suite("Pass-through filter: app-fingers")
struct PassThroughAppFingersTests {
    /// A two-finger pinch, the first finger lifting and coming back while the second stays,
    /// then all up and a new touch: with app-fingers = 1 the app sees the first finger and
    /// the new touch only, never two at once, and its finger count never says two.
    @Test func beyondTheLimitAFingerOfTheSequenceNeverReachesTheClone() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 400, y: 250)], pointer: [(400, 250)])
        s.frame([.slot(1, id: 2, x: 600, y: 250)], pointer: [(400, 250), (600, 250)])
        s.frame([.slot(0, x: 300), .slot(1, x: 700)], pointer: [(300, 250), (700, 250)])
        s.frame([.slot(0, id: -1)], pointer: [(700, 250)])
        s.frame([.slot(0, id: 3, x: 310, y: 250)], pointer: [(700, 250), (310, 250)])  // same sequence: kept
        s.frame([.slot(0, x: 320), .slot(1, x: 690)], pointer: [(690, 250), (320, 250)])
        s.frame([.slot(0, id: -1), .slot(1, id: -1)], pointer: [])
        s.frame([.slot(1, id: 4, x: 500, y: 250)], pointer: [(500, 250)])  // a new sequence
        s.frame([.slot(1, id: -1)], pointer: [])
        var run = PassThroughRun(PassThroughDevices.slotted, AppTouchFixtures.policy(fingers: 1))
        run.feed(s.events)
        #expect(AppTouchFixtures.cloneIDs(run) == [1, 4])
        let frames = run.reader.frames
        for frame in frames {
            #expect(frame.slots.count <= 1)
            #expect(frame.keys[BTN.toolDoubleTap] ?? 0 == 0)
            #expect((frame.keys[BTN.touch] ?? 0 != 0) == !frame.slots.isEmpty)
        }
        #expect(frames.map(\.slots[0]) == [.init(id: 1, x: 400, y: 250), .init(id: 1, x: 300, y: 250), nil, nil, nil])
        #expect(frames.last?.keys[BTN.touch] == 0)
        // Positions of the kept fingers never reach the clone's pointer either.
        #expect(!run.output.contains { ($0.code == ABS.x || $0.code == ABS.mtPositionX) && [600, 700, 690, 310].contains($0.value) })
    }

    @Test func twoFingersPassWithTwoAndTheThirdIsKept() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 400, y: 250), .slot(1, id: 2, x: 600, y: 250), .slot(2, id: 3, x: 800, y: 250)])
        s.frame([.slot(0, id: -1), .slot(1, id: -1), .slot(2, id: -1)])
        var run = PassThroughRun(PassThroughDevices.slotted, AppTouchFixtures.policy(fingers: 2))
        run.feed(s.events)
        #expect(AppTouchFixtures.cloneIDs(run) == [1, 2])
        #expect(run.reader.frames.first?.keys[BTN.toolDoubleTap] == 1)
        #expect(run.reader.frames.first?.keys[BTN.toolTripleTap] ?? 0 == 0)
    }

    /// A touch in a reserved region is not the app's and does not count.
    @Test func aReservedTouchDoesNotCount() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 500, y: 20)])  // the reserved edge
        s.frame([.slot(1, id: 2, x: 500, y: 250)])
        s.frame([.slot(2, id: 3, x: 700, y: 250)])
        var run = PassThroughRun(
            PassThroughDevices.slotted,
            AppTouchFixtures.policy(fingers: 1, reserved: [.init(name: "edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.1))]))
        run.feed(s.events)
        #expect(AppTouchFixtures.cloneIDs(run) == [2])
    }

    /// The innermost region that sets app-fingers decides, by the touch-down point; the
    /// device's value applies outside every region that sets it.
    @Test func theRegionOfTheTouchDownPointDecides() {
        let page = Rect(x: 0, y: 0, width: 1, height: 1)
        let map = Rect(x: 0.5, y: 0, width: 0.5, height: 1)
        let policy = PassThroughPolicy(
            geometry: AppTouchFixtures.geometry,
            app: AppTouchPolicy(
                areas: [
                    .init(rect: page, app: AppTouchSettings(longPress: true)),
                    .init(rect: map, app: AppTouchSettings(fingers: 2)),
                ],
                device: AppTouchSettings(fingers: 1)))
        // Left half: the page sets no finger limit, the device's 1 applies.
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 200, y: 250)])
        s.frame([.slot(1, id: 2, x: 300, y: 250)])
        s.frame([.slot(0, id: -1), .slot(1, id: -1)])
        // Right half: the map's 2, even when the second finger lands on the left.
        s.frame([.slot(0, id: 3, x: 800, y: 250)])
        s.frame([.slot(1, id: 4, x: 300, y: 250)])
        s.frame([.slot(2, id: 5, x: 900, y: 250)])
        var run = PassThroughRun(PassThroughDevices.slotted, policy)
        run.feed(s.events)
        // 4 lands on the left (limit 1, and one finger already passed): kept; 5 on the right.
        #expect(AppTouchFixtures.cloneIDs(run) == [1, 3, 5])
    }

    @Test func protocolAKeepsTheSecondContact() {
        var s = EventScript()
        s.contact(x: 4800, y: 3600)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 4810, y: 3600)
        s.contact(x: 6000, y: 3600)
        s.report()
        s.contact(x: 4820, y: 3600)
        s.contact(x: 6100, y: 3600)
        s.report()
        s.contact(x: 6200, y: 3600)
        s.report()  // the first lifted: the second stays kept
        s.key(BTN.touch, false)
        s.report()
        var run = PassThroughRun(Devices.unslotted(), PassThroughPolicy(app: AppTouchPolicy(device: AppTouchSettings(fingers: 1))))
        run.feed(s.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(run.output)
        #expect(reader.frames.map(\.contacts) == [[[4800, 3600]], [[4810, 3600]], [[4820, 3600]], []])
        #expect(reader.frames.map { $0.keys[BTN.touch] } == [1, 1, 1, 0])
    }
}
