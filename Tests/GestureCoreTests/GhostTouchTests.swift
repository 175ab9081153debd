import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// Ghost touches shaped like the Touch Display 2 report: down and up at one instant, at one
/// point (x 950, y 24 on the 100 × 50 mm `hygieneScreen`), every 12.864 s, with ±1 ms of
/// jitter on the period, and a person's touches in between. All on the virtual clock.
@Suite struct GhostTouchTests {
    static let ms: UInt64 = 1_000
    static let period: UInt64 = 12_864 * ms
    /// ±1 ms on each interval, in a fixed order.
    static let jitter: [Int64] = [1, -1, 0, 1, 1, -1, -1, 0, 1, -1, 0, 1]
    static let ghostX: Int32 = 950
    static let ghostY: Int32 = 24

    /// How a ghost's touch-down and lift arrive.
    enum Shape: Equatable {
        /// Tracking id set and cleared in one frame (no `BTN_TOUCH` change).
        case oneFrame
        /// Two frames with one timestamp, `BTN_TOUCH` 1 then 0.
        case sameInstant
        /// Two frames `duration` µs apart, motionless.
        case tap(duration: UInt64)
    }

    /// One ghost at the ghost point with tracking id `id`, its touch-down at `down` µs.
    static func ghost(_ script: inout EventScript, at down: UInt64, id: Int32, _ shape: Shape) {
        script.at(down)
        script.slot(0, id: id, x: ghostX, y: ghostY)
        switch shape {
        case .oneFrame:
            script.slot(0, id: -1)
            script.syn(SYN.report)
        case .sameInstant:
            script.key(BTN.touch, true)
            script.syn(SYN.report)
            script.slot(0, id: -1)
            script.key(BTN.touch, false)
            script.syn(SYN.report)
        case .tap(let duration):
            script.key(BTN.touch, true)
            script.syn(SYN.report)
            script.at(down + duration)
            script.slot(0, id: -1)
            script.key(BTN.touch, false)
            script.syn(SYN.report)
        }
    }

    /// `count` ghosts from 1 s on, 12.864 s ± 1 ms apart (tracking ids 1000…, slot 0), and a
    /// person's touches (`human`: at µs, tracking id, x, y, duration; slot 1, motionless),
    /// every touch-down and lift in order of time, so a person's touch may span a ghost.
    static func recording(
        ghosts count: Int, _ shape: Shape, human: [(at: UInt64, id: Int32, x: Int32, y: Int32, duration: UInt64)] = []
    ) -> (script: EventScript, ghostDowns: [UInt64]) {
        var downs: [UInt64] = []
        var down: UInt64 = 1_000_000
        for index in 0..<count {
            downs.append(down)
            down = UInt64(Int64(down) + Int64(period) + jitter[index % jitter.count] * Int64(ms))
        }
        var steps: [(time: UInt64, write: (inout EventScript) -> Void)] = []
        for (index, ghostDown) in downs.enumerated() {
            let id = Int32(1000 + index)
            switch shape {
            case .oneFrame, .sameInstant:
                steps.append((ghostDown, { ghost(&$0, at: ghostDown, id: id, shape) }))
            case .tap(let duration):
                steps.append(
                    (
                        ghostDown,
                        {
                            $0.at(ghostDown)
                            $0.slot(0, id: id, x: ghostX, y: ghostY)
                            $0.syn(SYN.report)
                        }
                    ))
                steps.append(
                    (
                        ghostDown + duration,
                        {
                            $0.at(ghostDown + duration)
                            $0.slot(0, id: -1)
                            $0.syn(SYN.report)
                        }
                    ))
            }
        }
        for person in human {
            steps.append(
                (
                    person.at,
                    {
                        $0.at(person.at)
                        $0.slot(1, id: person.id, x: person.x, y: person.y)
                        $0.syn(SYN.report)
                    }
                ))
            steps.append(
                (
                    person.at + person.duration,
                    {
                        $0.at(person.at + person.duration)
                        $0.slot(1, id: -1)
                        $0.syn(SYN.report)
                    }
                ))
        }
        var script = EventScript()
        for step in steps.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }) {
            step.element.write(&script)
        }
        return (script, downs)
    }

    /// Tracking ids of the ghosts (1000…) a reader of the clone saw touch down.
    static func ghostsOnClone(_ rig: HygieneRig) -> [Int32] { rig.cloneTrackingIDs.filter { $0 >= 1000 } }

    /// The clone's `BTN_TOUCH` ever went down.
    static func cloneTouched(_ rig: HygieneRig) -> Bool {
        rig.clone.contains { $0.type == EV.key && $0.code == BTN.touch && $0.value == 1 }
    }

    static let ghostRules = TouchHygieneSettings(phantom: .suppress, shortestContact: .milliseconds(1))

    // MARK: Zero-duration contacts

    @Test(arguments: [Shape.oneFrame, .sameInstant])
    func zeroDurationGhostsReachNobodyFromTheFirstOn(_ shape: Shape) {
        let (script, _) = Self.recording(ghosts: 12, shape)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(shortestContact: .milliseconds(1)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == Array(repeating: .zeroDuration, count: 12))
        #expect(rig.sink.contactsSeen.isEmpty)
        #expect(rig.sink.events.isEmpty)
        #expect(rig.clone.isEmpty, "\(rig.clone)")
        // Without the rule every one of them reaches the `touch` lines (and so the idle
        // watch); those in two frames are taps too.
        var plain = HygieneRig(hygieneScreen, TouchHygieneSettings())
        plain.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(plain.sink.reasons.isEmpty)
        #expect(plain.sink.contactsSeen.count == 12)
        #expect(plain.sink.gestures(.tap, .ended).count == (shape == .sameInstant ? 12 : 0))
    }

    @Test func aContactShorterThanTheLimitIsDroppedAndOneAtTheLimitPasses() {
        var script = EventScript()
        Self.ghost(&script, at: 1_000_000, id: 1000, .tap(duration: 999))
        Self.ghost(&script, at: 2_000_000, id: 1001, .tap(duration: 1_000))
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(shortestContact: .milliseconds(1)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == [.zeroDuration])
        #expect(rig.sink.touchDowns.count == 1)
        #expect(Self.ghostsOnClone(rig) == [1001])
    }

    @Test func aRealTapIsHeldForTheLimitAndThenPassesWhole() {
        var script = EventScript()
        script.press(id: 7, x: 300, y: 200, duration: 40 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(shortestContact: .milliseconds(1)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons.isEmpty)
        #expect(rig.sink.gestures(.tap, .ended).count == 1)
        #expect(rig.cloneTrackingIDs == [7])
        // It began on the clone and for the engine 1 ms after the hardware's touch-down.
        let began = rig.sink.frames.first { $0.contacts.contains { $0.phase == .began } }
        #expect(began?.time == Timestamp(microseconds: 1_001_000))
    }

    @Test func aHeldTouchThatMovesBeginsAtOnce() {
        var script = EventScript()
        script.slot(0, id: 7, x: 300, y: 200)
        script.syn(SYN.report)
        script.at(script.time + 500)
        script.slot(0, x: 400)
        script.syn(SYN.report)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(shortestContact: .milliseconds(1)))
        rig.run(script.events)
        #expect(rig.sink.touchDowns == [1])
        #expect(rig.sink.frames.first?.time == Timestamp(microseconds: 1_000_500))
        #expect(rig.cloneTrackingIDs == [7])
    }

    /// A touch that begins while another is down is not held: the person's touch sequence
    /// (a tracking id handed over in one frame, a second finger) reaches the engine whole.
    @Test func aTouchBesideAnotherIsNotHeld() {
        var script = EventScript()
        script.slot(0, id: 7, x: 300, y: 200)
        script.syn(SYN.report)
        script.at(script.time + 20 * Self.ms)
        script.slot(0, id: -1)
        script.slot(1, id: 8, x: 302, y: 200)
        script.syn(SYN.report)
        script.at(script.time + 20 * Self.ms)
        script.slot(1, id: -1)
        script.syn(SYN.report)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(shortestContact: .milliseconds(1)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        var plain = HygieneRig(hygieneScreen, TouchHygieneSettings())
        plain.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons.isEmpty)
        // The second contact begins in the frame the first lifts, as without the rule.
        #expect(rig.sink.frames.dropFirst().map(\.contacts.count) == plain.sink.frames.dropFirst().map(\.contacts.count))
        #expect(rig.sink.events.map(\.kind) == plain.sink.events.map(\.kind))
    }

    // MARK: A learned ghost stays learned

    /// The report's replay: 12 ghost taps over 2.6 minutes and two taps by a person in
    /// between. Before, a touch elsewhere broke the series and clients got 9 of 12.
    @Test func aLearnedSeriesSurvivesTouchesElsewhere() {
        let human: [(at: UInt64, id: Int32, x: Int32, y: Int32, duration: UInt64)] = [
            (50_000_000, 1, 300, 200, 90 * Self.ms), (100_000_000, 2, 600, 300, 120 * Self.ms),
        ]
        let (script, _) = Self.recording(ghosts: 12, .tap(duration: 30 * Self.ms), human: human)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        // The first three teach the series; the other nine are dropped, people's taps pass.
        #expect(rig.sink.reasons == Array(repeating: .phantom, count: 9))
        #expect(Self.ghostsOnClone(rig) == [1000, 1001, 1002])
        #expect(rig.cloneTrackingIDs.filter { $0 < 1000 } == [1, 2])
        #expect(rig.sink.gestures(.tap, .ended).count == 3 + 2)
        let series = rig.pipeline.hygiene.ghostSeries(device: "panel")
        #expect(series.count == 1)
        #expect(series.first?.count == 12)
        #expect(series.first.map { abs(Int64($0.period.microseconds) - Int64(Self.period)) <= 1_000 } == true)
        #expect(series.first.map { abs($0.location.x - 0.95) < 0.001 } == true)
    }

    /// A person touching during the learning does not break it either, and a ghost that
    /// falls while the person's finger is down is dropped too.
    @Test func learningSurvivesTouchesElsewhereAndGhostsUnderAFingerAreDropped() {
        let downs = Self.recording(ghosts: 8, .tap(duration: 30 * Self.ms)).ghostDowns
        let withPeople = Self.recording(
            ghosts: 8, .tap(duration: 30 * Self.ms),
            human: [
                (downs[1] + 5_000 * Self.ms, 1, 300, 200, 80 * Self.ms),
                // Down across the sixth ghost: a long press elsewhere.
                (downs[5] - 400 * Self.ms, 2, 200, 400, 900 * Self.ms),
            ]
        ).script
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(withPeople.events, until: withPeople.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == Array(repeating: .phantom, count: 5))
        #expect(Self.ghostsOnClone(rig) == [1000, 1001, 1002])
        #expect(rig.cloneTrackingIDs.filter { $0 < 1000 } == [1, 2])
        #expect(rig.sink.gestures(.longPress, .began).count == 1)
    }

    /// A person at the ghost's point: off the phase they pass at once; on the phase a press
    /// that outlasts the series' touches passes when it does; a tap as short as the ghosts,
    /// on the phase, is dropped with them.
    @Test func aRealTouchAtTheGhostsPointGetsThrough() {
        let downs = Self.recording(ghosts: 6, .tap(duration: 30 * Self.ms)).ghostDowns
        let x = Self.ghostX + 2
        let (script, _) = Self.recording(
            ghosts: 6, .tap(duration: 30 * Self.ms),
            human: [
                (downs[3] + 5_000 * Self.ms, 1, x, Self.ghostY, 80 * Self.ms),  // off the phase
                (downs[5] + Self.period, 2, x, Self.ghostY, 400 * Self.ms),  // on the phase, a press
                (downs[5] + 2 * Self.period, 3, x, Self.ghostY, 30 * Self.ms),  // on the phase, as short as the ghosts
            ])
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == [.phantom, .phantom, .phantom, .phantom])
        #expect(rig.cloneTrackingIDs.filter { $0 < 1000 } == [1, 2])
        // The ghosts that taught the series, the person's tap and press (320 ms once shown).
        #expect(rig.sink.gestures(.tap, .ended).count == 3 + 2)
        #expect(rig.sink.gestures(.press, .began).count == 3 + 2)
    }

    /// The hard case: a person tapping one button every 13 s. People's taps land
    /// millimetres apart and their intervals vary by more than 2 %: no series is learned.
    /// One who hits the same millimetre every 13 s to within 2 % is taken for a ghost from
    /// the fourth tap, unless the tap lasts longer than twice the series' longest plus 20 ms.
    @Test func aPersonTappingOneButtonEvery13SecondsIsNotAGhost() {
        var script = EventScript()
        // Offsets in device units (0.1 mm) and interval deviations in ms of a person's taps.
        let offsets: [(Int32, Int32)] = [(0, 0), (14, -6), (-9, 11), (5, 18), (-16, -3), (8, 9), (-4, -15), (12, 4)]
        let deviations: [Int64] = [0, 420, -310, 650, -520, 380, -700, 290]
        var down: UInt64 = 1_000_000
        for (index, offset) in offsets.enumerated() {
            down = UInt64(Int64(down) + (index == 0 ? 0 : 13_000 + deviations[index]) * Int64(Self.ms))
            script.at(down)
            script.press(id: Int32(index + 1), x: 500 + offset.0, y: 250 + offset.1, duration: UInt64(80 + index * 7) * Self.ms)
        }
        var rig = HygieneRig(hygieneScreen, Self.ghostRules)
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons.isEmpty)
        #expect(rig.sink.gestures(.tap, .ended).count == 8)
        #expect(rig.pipeline.hygiene.ghostSeries(device: "panel").isEmpty)
    }

    @Test func aSeriesThatChangesItsPeriodIsLearnedAgain() {
        // Learned at 12.864 s; the panel then ghosts every 7 s: after phantomMissedPeriods
        // periods without a touch on the old phase, the new period is learned from the next.
        var (script, downs) = Self.recording(ghosts: 4, .tap(duration: 30 * Self.ms))
        var down = downs[3]
        for index in 0..<16 {
            down += 7_000 * Self.ms
            Self.ghost(&script, at: down, id: Int32(2000 + index), .tap(duration: 30 * Self.ms))
        }
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        // The fourth old one; the tenth new one (70 s on) starts the series again, the
        // thirteenth to sixteenth are dropped.
        #expect(rig.sink.reasons.count == 1 + 4)
        #expect(rig.pipeline.hygiene.ghostSeries(device: "panel").first?.period == .milliseconds(7_000))
    }

    // MARK: Ghosts are not activity

    /// The idle timer as the daemon runs it: every frame the engine sees with a contact is
    /// activity (`DaemonSink.frameMade`).
    static func activity(_ frames: [TouchFrame], timeout: TimeSpan, until end: Timestamp) -> [ActivityMonitor.Change] {
        var monitor = ActivityMonitor(timeout: timeout, now: Timestamp(microseconds: 1_000_000))
        var changes: [ActivityMonitor.Change] = []
        for frame in frames where !frame.contacts.isEmpty {
            if let change = monitor.advance(to: frame.time) { changes.append(change) }
            if let change = monitor.touched(device: "panel", at: frame.time, down: frame.fingerCount) { changes.append(change) }
        }
        if let change = monitor.advance(to: end) { changes.append(change) }
        return changes
    }

    @Test func droppedGhostsNeitherResetTheIdleTimerNorWakeTheScreen() {
        let (script, _) = Self.recording(ghosts: 12, .sameInstant)
        let end = Timestamp(microseconds: script.time + 1_000 * Self.ms)
        var rig = HygieneRig(hygieneScreen, Self.ghostRules, wakeSwallow: true)
        rig.filter.idle()
        rig.run(script.events, until: end.microseconds)
        #expect(Self.activity(rig.sink.frames, timeout: .seconds(30), until: end) == [.idle(at: Timestamp(microseconds: 31_000_000))])
        #expect(rig.filter.wakeTouchCount == 0)
        #expect(!Self.cloneTouched(rig))
        // The first real touch after them is still the wake touch, kept off the clone.
        var wake = EventScript()
        wake.at(end.microseconds + 1_000 * Self.ms)
        wake.press(id: 1, x: 300, y: 200, duration: 60 * Self.ms)
        wake.at(wake.time + 500 * Self.ms)
        wake.press(id: 2, x: 300, y: 200, duration: 60 * Self.ms)
        rig.run(wake.events, until: wake.time + 1_000 * Self.ms)
        #expect(rig.filter.wakeTouchCount == 1)
        #expect(rig.cloneTrackingIDs == [2])
        // Without the rules the ghosts keep the daemon awake and the first one is the wake touch.
        var plain = HygieneRig(hygieneScreen, TouchHygieneSettings(), wakeSwallow: true)
        plain.filter.idle()
        plain.run(script.events, until: end.microseconds)
        #expect(Self.activity(plain.sink.frames, timeout: .seconds(30), until: end).isEmpty)
        #expect(plain.filter.wakeTouchCount == 1)
    }

    @Test func learnedTapGhostsAreNotActivityEither() {
        let (script, _) = Self.recording(ghosts: 12, .tap(duration: 30 * Self.ms))
        let end = Timestamp(microseconds: script.time + 1_000 * Self.ms)
        var rig = HygieneRig(hygieneScreen, Self.ghostRules)
        rig.run(script.events, until: end.microseconds)
        // The three that teach the series are activity; after the third, idle 30 s later for good.
        let changes = Self.activity(rig.sink.frames, timeout: .seconds(30), until: end)
        #expect(changes.count == 1)
        if case .idle(let at) = changes.first {
            #expect(at > Timestamp(microseconds: 2 * Self.period + 30_000_000))
            #expect(at < Timestamp(microseconds: 3 * Self.period + 30_000_000))
        }
        #expect(Self.ghostsOnClone(rig) == [1000, 1001, 1002])
    }
}
