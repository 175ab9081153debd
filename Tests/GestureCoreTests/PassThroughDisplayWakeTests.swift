import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

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
