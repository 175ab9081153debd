import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// Collects what a device's pipeline gives the daemon: gestures, the frames `touch` lines
/// carry (the classified ones), what touch hygiene dropped or ended, and in `order` when
/// each frame was shown before and after the engine among the gestures.
struct HygieneSink: GestureSink {
    var events: [GestureEvent] = []
    var frames: [TouchFrame] = []
    var filtered: [TouchFiltered] = []
    var order: [String] = []
    var lastID: UInt64 = 0

    mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    mutating func emit(_ event: GestureEvent) {
        events.append(event)
        order.append("\(event.kind) \(event.phase)")
    }

    mutating func frameMade(_ frame: TouchFrame) { order.append("made \(Self.phases(frame))") }

    mutating func frameClassified(_ frame: TouchFrame) {
        frames.append(frame)
        order.append("classified \(Self.phases(frame))")
    }

    static func phases(_ frame: TouchFrame) -> String { frame.contacts.map { "\($0.id) \($0.phase)" }.joined(separator: ", ") }

    mutating func touchFiltered(_ filtered: TouchFiltered) { self.filtered.append(filtered) }

    /// Contact ids that touched down in a `touch` line (`began`).
    var touchDowns: [UInt32] { frames.flatMap { $0.contacts.filter { $0.phase == .began }.map(\.id) } }
    /// Every contact id any `touch` line carried.
    var contactsSeen: Set<UInt32> { Set(frames.flatMap { $0.contacts.map(\.id) }) }
    var reasons: [TouchHygieneReason] { filtered.map(\.reason) }

    func gestures(_ kind: GestureKind, _ phase: GesturePhase) -> [GestureEvent] {
        events.filter { $0.kind == kind && $0.phase == phase }
    }
}

extension GestureEvent {
    /// A tap's count (0 for other gestures).
    var tapCount: Int {
        if case .tap(let count) = details { return count }
        return 0
    }
}

/// A device's pipeline and its pass-through filter driven as the daemon drives them, on a
/// virtual clock: before each event the deadlines due at or before it fire (the engine's and
/// touch hygiene's, each followed by the filter learning what hygiene hides), then the
/// pipeline reads the event, then the filter with what hygiene hides after it.
struct HygieneRig {
    var pipeline: DevicePipeline
    var filter: PassThroughFilter
    var sink = HygieneSink()
    var clone: [InputEvent] = []

    init(
        _ device: DeviceDescription, _ touch: TouchHygieneSettings, engine: EngineConfiguration = EngineConfiguration(),
        geometry: DeviceGeometry = DeviceGeometry(), wakeSwallow: Bool = false
    ) {
        pipeline = DevicePipeline(device: device, geometry: geometry, configuration: engine, touch: touch)
        filter = PassThroughFilter(device: device, policy: PassThroughPolicy(geometry: geometry, wakeSwallow: wakeSwallow))
    }

    mutating func run(_ events: [InputEvent], until end: UInt64? = nil) {
        for event in events {
            fireDeadlines(upTo: event.time)
            pipeline.feed(event, into: &sink)
            if case .emit(let frame) = filter.feed(event, hidden: pipeline.hiddenTouches) { clone += frame }
        }
        if let end { fireDeadlines(upTo: Timestamp(microseconds: end)) }
    }

    /// As the daemon reads `events` in one batch (or with its timer late): no deadline fires
    /// between them, only those due by `end` after the last.
    mutating func runAsOneRead(_ events: [InputEvent], until end: UInt64) {
        for event in events {
            pipeline.feed(event, into: &sink)
            if case .emit(let frame) = filter.feed(event, hidden: pipeline.hiddenTouches) { clone += frame }
        }
        fireDeadlines(upTo: Timestamp(microseconds: end))
    }

    mutating func fireDeadlines(upTo time: Timestamp) {
        while let deadline = pipeline.nextDeadline, deadline <= time {
            pipeline.advance(to: deadline, into: &sink)
            if case .emit(let frame) = filter.hiddenTouchesChanged(pipeline.hiddenTouches, at: deadline) { clone += frame }
        }
    }

    /// What a reader of the clone saw, frame by frame.
    var reader: EvdevReader {
        var reader = EvdevReader()
        reader.read(clone)
        return reader
    }

    /// Tracking ids that ever touched down on the clone (protocol B).
    var cloneTrackingIDs: [Int32] {
        clone.filter { $0.type == EV.abs && $0.code == ABS.mtTrackingID && $0.value >= 0 }.map(\.value)
    }
}

/// A protocol-B screen at 10 units per mm: x 0…1000 is 100 mm.
let hygieneScreen = Devices.slotted(slots: 5, resolution: 10)

extension EventScript {
    /// A touch in `slot` with tracking id `id` at (x, y) held for `duration` µs (frames
    /// every 10 ms), then lifted; the clock ends at the lift.
    mutating func press(slot: Int32 = 0, id: Int32, x: Int32, y: Int32, duration: UInt64, wiggle: Bool = false) {
        self.slot(slot, id: id, x: x, y: y)
        report()
        let lift = time - 10_000 + duration
        while wiggle && time < lift {
            // Position reports that hardly move (a resting finger's noise, a unit either way).
            self.slot(slot, x: x + Int32(time / 10_000 % 2))
            report()
        }
        time = lift
        self.slot(slot, id: -1)
        syn(SYN.report)
    }

    /// Moves the clock to `microseconds`.
    mutating func at(_ microseconds: UInt64) { time = microseconds }
}

@Suite struct TouchHygieneTests {
    static let ms: UInt64 = 1_000

    // MARK: Defaults

    @Test func withEveryFilterOffTheFramesAreTheTrackersUnchanged() {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 50 * Self.ms)
        script.at(script.time + 10 * Self.ms)
        script.press(id: 2, x: 500, y: 250, duration: 50 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings())
        rig.run(script.events)
        var tracker = ContactTracker(device: hygieneScreen)
        #expect(rig.sink.frames == tracker.frames(script.events))
        #expect(rig.sink.filtered.isEmpty)
        #expect(!rig.pipeline.hygiene.isActive)
    }

    // MARK: debounce

    /// A touch starting `gap` after the previous lift, `distance` units (0.1 mm) from it.
    func bounce(gap: UInt64, distance: Int32, debounce: Double = 40) -> HygieneRig {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 60 * Self.ms)
        script.at(script.time + gap)
        script.press(id: 2, x: 500 + distance, y: 250, duration: 60 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(debounce: .milliseconds(debounce)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        return rig
    }

    @Test func aBounceIsDroppedWholeForGesturesTouchLinesAndTheClone() {
        let rig = bounce(gap: 20 * Self.ms, distance: 10)
        #expect(rig.sink.reasons == [.bounce])
        #expect(rig.sink.touchDowns == [1])
        #expect(rig.sink.contactsSeen == [1])
        #expect(rig.sink.gestures(.press, .began).count == 1)
        #expect(rig.sink.gestures(.tap, .ended).map(\.tapCount) == [1])
        #expect(rig.cloneTrackingIDs == [1])
    }

    @Test func exactlyAtTheDebounceIsStillABounceOneMicrosecondLaterIsNot() {
        #expect(bounce(gap: 40 * Self.ms, distance: 0).sink.reasons == [.bounce])
        let later = bounce(gap: 40 * Self.ms + 1, distance: 0)
        #expect(later.sink.reasons.isEmpty)
        #expect(later.sink.touchDowns == [1, 2])
        #expect(later.cloneTrackingIDs == [1, 2])
    }

    @Test func aTouchBeyondTheSlopOfTheLiftIsNoBounce() {
        // The tap slop is 3 mm: 30 units is exactly at it (a bounce), 31 beyond.
        #expect(bounce(gap: 10 * Self.ms, distance: 30).sink.reasons == [.bounce])
        #expect(bounce(gap: 10 * Self.ms, distance: 31).sink.reasons.isEmpty)
    }

    @Test func aRealDoubleTapIsUntouched() {
        let rig = bounce(gap: 120 * Self.ms, distance: 0)
        #expect(rig.sink.reasons.isEmpty)
        #expect(rig.sink.gestures(.tap, .ended).map(\.tapCount) == [1, 2])
    }

    // MARK: ignore-repeat

    @Test func aRepeatAnywhereWithinIgnoreRepeatIsDropped() {
        var script = EventScript()
        script.press(id: 1, x: 100, y: 100, duration: 60 * Self.ms)
        script.at(script.time + 300 * Self.ms)
        script.press(id: 2, x: 900, y: 400, duration: 60 * Self.ms)
        script.at(script.time + 300 * Self.ms + 1)
        script.press(id: 3, x: 900, y: 400, duration: 60 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(ignoreRepeat: .milliseconds(300)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == [.repeat])
        #expect(rig.sink.touchDowns == [1, 3])
        #expect(rig.cloneTrackingIDs == [1, 3])
    }

    // MARK: hold-duration

    @Test func aHeldTouchStartsWhenTheHoldDurationIsReachedAndNotBefore() {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 700 * Self.ms, wiggle: true)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(300)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        let begins = rig.sink.frames.filter { $0.contacts.contains { $0.phase == .began } }
        #expect(begins.map(\.time) == [Timestamp(microseconds: 1_000_000 + 300 * Self.ms)])
        #expect(rig.sink.gestures(.press, .began).map(\.time) == [Timestamp(microseconds: 1_000_000 + 300 * Self.ms)])
        // A long press needs its own 500 ms on top: 400 ms held after acceptance is not one.
        #expect(rig.sink.gestures(.longPress, .began).isEmpty)
        // On the clone the touch starts at the same moment.
        let cloneDown = rig.clone.first { $0.code == ABS.mtTrackingID && $0.value >= 0 }
        #expect(cloneDown?.time == Timestamp(microseconds: 1_000_000 + 300 * Self.ms))
        #expect(rig.reader.slots.isEmpty)
    }

    @Test func aTouchLiftedBeforeTheHoldDurationIsDroppedAsTooShortExactlyAtItCounts() {
        for (duration, dropped) in [(300 * Self.ms - 1, true), (300 * Self.ms, false)] {
            var script = EventScript()
            script.press(id: 1, x: 500, y: 250, duration: duration)
            var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(300)))
            rig.run(script.events, until: script.time + 1_000 * Self.ms)
            #expect(rig.sink.reasons == (dropped ? [.tooShort] : []))
            #expect(rig.sink.touchDowns == (dropped ? [] : [1]))
            #expect(rig.cloneTrackingIDs == (dropped ? [] : [1]))
        }
    }

    @Test func aHeldTouchMovingBeyondTheSlopIsDropped() {
        var script = EventScript()
        script.slot(0, id: 1, x: 500, y: 250)
        script.report()
        script.slot(0, x: 540)
        script.report()
        script.at(1_000_000 + 400 * Self.ms)
        script.slot(0, id: -1)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(300)))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == [.tooShort])
        #expect(rig.sink.frames.isEmpty)
        #expect(rig.clone.isEmpty)
    }

    @Test func twoFingersDownInOneFrameAreAcceptedTogether() {
        var script = EventScript()
        script.slot(0, id: 1, x: 300, y: 250)
        script.slot(1, id: 2, x: 700, y: 250)
        script.report()
        script.at(1_000_000 + 500 * Self.ms)
        script.slot(0, id: -1)
        script.slot(1, id: -1)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(200)))
        rig.run(script.events)
        let begins = rig.sink.frames.filter { $0.contacts.contains { $0.phase == .began } }
        #expect(begins.count == 1)
        #expect(begins.first?.contacts.count == 2)
        #expect(begins.first?.fingerCount == 2)
        #expect(rig.cloneTrackingIDs == [1, 2])
    }

    /// The daemon reads input queued past a deadline before it fires its timers, so touch
    /// hygiene's deadlines usually fire inside `feed`, as here (no `advance`): the frame
    /// accepting the held touch is shown before the engine (the idle watch's `active`
    /// before the touch's gestures) and after it (counted, sent as `touch` lines).
    @Test func aHeldTouchAcceptedWhileInputArrivesIsShownBeforeAndAfterItsGestures() {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 700 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(300)))
        for event in script.events { rig.pipeline.feed(event, into: &rig.sink) }
        #expect(rig.sink.frames.first?.time == Timestamp(microseconds: 1_000_000 + 300 * Self.ms))
        #expect(rig.sink.touchDowns == [1])
        let acceptance = ["made 1 began", "press began", "classified 1 began"]
        #expect(rig.sink.order.filter(acceptance.contains) == acceptance)
        #expect(rig.sink.order.last == "classified 1 ended")
    }

    // MARK: stuck-after

    @Test func aStuckContactIsEndedCancelledLiftedOnTheCloneAndIgnoredUntilItLifts() {
        var script = EventScript()
        script.slot(0, id: 7, x: 500, y: 250)
        script.report()
        script.at(1_000_000 + 5_000 * Self.ms)
        script.slot(0, x: 501)
        script.report()
        script.at(1_000_000 + 9_000 * Self.ms)
        script.slot(0, id: -1)
        script.report()
        script.slot(0, id: 8, x: 500, y: 250)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(stuckAfter: .seconds(2)))
        rig.run(script.events)
        #expect(rig.sink.reasons == [.stuck])
        #expect(rig.sink.filtered.first?.time == Timestamp(microseconds: 3_000_000))
        #expect(rig.sink.gestures(.press, .cancelled).map(\.time) == [Timestamp(microseconds: 3_000_000)])
        // The cancelled contact in a touch line at 3 s, nothing of it afterwards, then the next touch.
        let phases = rig.sink.frames.flatMap { frame in frame.contacts.map { "\($0.id) \($0.phase)" } }
        #expect(phases == ["1 began", "1 cancelled", "2 began"])
        // On the clone: down, lifted at 3 s, and the next touch of the slot is new.
        let ids = rig.clone.filter { $0.code == ABS.mtTrackingID }.map { "\($0.value)@\($0.time.microseconds / 1000)" }
        #expect(ids == ["7@1000", "-1@3000", "8@\(script.time / 1000 - 10)"])
    }

    /// As for a held touch: a stuck touch ended at a deadline that fires inside `feed` is
    /// shown before and after the engine like every frame.
    @Test func aStuckTouchEndedWhileInputArrivesIsShownBeforeAndAfterItsGestures() {
        var script = EventScript()
        script.slot(0, id: 7, x: 500, y: 250)
        script.report()
        script.at(1_000_000 + 5_000 * Self.ms)
        script.slot(0, x: 501)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(stuckAfter: .seconds(2)))
        for event in script.events { rig.pipeline.feed(event, into: &rig.sink) }
        #expect(rig.sink.reasons == [.stuck])
        #expect(rig.sink.frames.map(\.time) == [Timestamp(microseconds: 1_000_000), Timestamp(microseconds: 3_000_000)])
        let ending = ["made 1 cancelled", "press cancelled", "classified 1 cancelled"]
        #expect(rig.sink.order.filter(ending.contains) == ending)
        #expect(rig.sink.order.last == "classified 1 cancelled")
    }

    // MARK: A device's touches cancelled

    /// The frame that cancels what a device had down (unplugged, reloaded, closed) takes every
    /// frame's route, with touch hygiene off or on: shown before the engine (the idle watch
    /// learns no finger is down) and after it (its `touch` lines, `cancelled`).
    @Test(arguments: [false, true]) func cancellingADevicesContactsEndsEveryTouchShown(withHygiene: Bool) {
        var script = EventScript()
        script.slot(0, id: 7, x: 500, y: 250)
        script.report()
        let touch = withHygiene ? TouchHygieneSettings(stuckAfter: .seconds(2)) : TouchHygieneSettings()
        var rig = HygieneRig(hygieneScreen, touch)
        rig.run(script.events)
        rig.pipeline.cancelAll(at: Timestamp(microseconds: 1_200_000), into: &rig.sink)
        #expect(
            rig.sink.order == [
                "made 1 began", "press began", "classified 1 began", "made 1 cancelled", "press cancelled",
                "classified 1 cancelled",
            ])
        #expect(rig.sink.frames.last?.time == Timestamp(microseconds: 1_200_000))
    }

    /// A touch touch hygiene still holds back was never shown: cancelling the device ends it
    /// unseen, with no frame at all.
    @Test func cancellingADevicesContactsShowsNothingOfAHeldTouch() {
        var script = EventScript()
        script.slot(0, id: 7, x: 500, y: 250)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(300)))
        rig.run(script.events)
        rig.pipeline.cancelAll(at: Timestamp(microseconds: 1_100_000), into: &rig.sink)
        #expect(rig.sink.order.isEmpty)
        #expect(rig.sink.events.isEmpty)
    }

    @Test func movingBeyondTheSlopRestartsTheStuckTimer() {
        var script = EventScript()
        script.slot(0, id: 7, x: 500, y: 250)
        script.report()
        script.at(1_000_000 + 1_500 * Self.ms)
        script.slot(0, x: 600)
        script.report()
        script.at(1_000_000 + 3_000 * Self.ms)
        script.slot(0, id: -1)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(stuckAfter: .seconds(2)))
        rig.run(script.events)
        #expect(rig.sink.reasons.isEmpty)
        #expect(rig.cloneTrackingIDs == [7])
    }

    // MARK: phantom

    /// Taps at one point every `period` µs (the intervals scaled by `jitter`).
    func phantoms(_ count: Int, period: UInt64, x: Int32 = 500, jitter: [Double] = []) -> EventScript {
        var script = EventScript()
        var down: UInt64 = 1_000_000
        for index in 0..<count {
            script.at(down)
            script.press(slot: 0, id: Int32(index + 1), x: x, y: 250, duration: 40 * Self.ms, wiggle: true)
            let factor = index < jitter.count ? jitter[index] : 1
            down += UInt64(Double(period) * factor)
        }
        return script
    }

    @Test func aPhantomSeriesIsDroppedFromItsFourthTouchOn() {
        let script = phantoms(7, period: 12_864 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == [.phantom, .phantom, .phantom, .phantom])
        #expect(rig.sink.touchDowns == [1, 2, 3])
        #expect(rig.cloneTrackingIDs == [1, 2, 3])
        #expect(rig.sink.gestures(.tap, .ended).count == 3)
        // One log line per series: only the first dropped touch carries the period.
        #expect(rig.sink.filtered.map(\.seriesPeriod) == [.milliseconds(12_864), nil, nil, nil])
    }

    @Test func anIntervalOffByMoreThanTwoPercentBreaksTheSeries() {
        // Exactly 2 % off still belongs to the series; 2.1 % off its phase is not of it.
        let within = phantoms(5, period: 10_000 * Self.ms, jitter: [1, 1, 1.02, 1])
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(within.events)
        #expect(rig.sink.reasons == [.phantom, .phantom])
        let broken = phantoms(6, period: 10_000 * Self.ms, jitter: [1, 1, 1.021, 1, 1])
        var brokenRig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        brokenRig.run(broken.events)
        #expect(brokenRig.sink.reasons == [])
    }

    @Test func aTouchElsewhereDoesNotBreakTheSeries() {
        var script = phantoms(3, period: 10_000 * Self.ms)
        script.at(1_000_000 + 25_000 * Self.ms)
        script.press(id: 10, x: 100, y: 100, duration: 40 * Self.ms)
        script.at(1_000_000 + 30_000 * Self.ms)
        script.press(id: 4, x: 500, y: 250, duration: 40 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(script.events)
        #expect(rig.sink.reasons == [.phantom])
        #expect(rig.cloneTrackingIDs == [1, 2, 3, 10])
    }

    @Test func aTouchMoreThanAMillimetreAwayIsNotOfTheSeries() {
        var script = phantoms(3, period: 10_000 * Self.ms)
        script.at(1_000_000 + 30_000 * Self.ms)
        script.press(id: 4, x: 511, y: 250, duration: 40 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        rig.run(script.events)
        #expect(rig.sink.reasons.isEmpty)
        var exact = phantoms(3, period: 10_000 * Self.ms)
        exact.at(1_000_000 + 30_000 * Self.ms)
        exact.press(id: 4, x: 510, y: 250, duration: 40 * Self.ms)
        var exactRig = HygieneRig(hygieneScreen, TouchHygieneSettings(phantom: .suppress))
        exactRig.run(exact.events)
        #expect(exactRig.sink.reasons == [.phantom])
    }

    // MARK: Other devices

    @Test func protocolADevicesAreFilteredAndTheirCloneAgrees() {
        let device = Devices.unslotted()
        var script = EventScript()
        script.contact(x: 4800, y: 3600)
        script.report()
        script.report()  // lifted: a frame without contacts
        script.at(script.time + 10 * Self.ms)
        script.contact(x: 4800, y: 3600)
        script.report()
        script.report()
        var rig = HygieneRig(device, TouchHygieneSettings(debounce: .milliseconds(40)))
        rig.run(script.events)
        #expect(rig.sink.reasons == [.bounce])
        #expect(rig.sink.touchDowns.count == 1)
        // The clone: one frame with the contact, then its lift; the bounce never shows.
        let positions = rig.clone.filter { $0.type == EV.abs && $0.code == ABS.mtPositionX }
        #expect(positions.map(\.time) == [Timestamp(microseconds: 1_000_000)])
    }

    @Test func singleTouchDevicesAreFilteredAndTheirCloneAgrees() {
        let device = Devices.singleTouch()
        var script = EventScript()
        func tap(_ script: inout EventScript) {
            script.abs(ABS.x, 2000)
            script.abs(ABS.y, 2000)
            script.key(BTN.touch, true)
            script.report()
            script.key(BTN.touch, false)
            script.report()
        }
        tap(&script)
        script.at(script.time + 10 * Self.ms)
        tap(&script)
        var rig = HygieneRig(device, TouchHygieneSettings(debounce: .milliseconds(40)))
        rig.run(script.events)
        #expect(rig.sink.reasons == [.bounce])
        let touchDowns = rig.clone.filter { $0.type == EV.key && $0.code == BTN.touch && $0.value == 1 }
        #expect(touchDowns.count == 1)
    }

    // MARK: SYN_DROPPED and reload

    @Test func aDroppedTouchStaysDroppedThroughSynDropped() {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 50 * Self.ms)
        script.at(script.time + 10 * Self.ms)
        script.slot(0, id: 2, x: 500, y: 250)
        script.report()
        script.syn(SYN.dropped)
        script.report()
        // libevdev's delta: the touch is still down, and moves on.
        script.slot(0, x: 520)
        script.report()
        script.slot(0, x: 540)
        script.report()
        script.slot(0, id: -1)
        script.report()
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(debounce: .milliseconds(40)))
        rig.run(script.events)
        #expect(rig.sink.reasons == [.bounce])
        #expect(rig.sink.contactsSeen == [1])
        #expect(rig.cloneTrackingIDs == [1])
    }

    @Test func aReloadKeepsTheDecisionOfATouchDownAndAppliesNewValuesToTheNextTouch() {
        // A touch held back under hold-duration 300 ms; at 100 ms a reload turns hold-duration
        // off and debounce on. The touch keeps its decision (accepted at 300 ms); the next
        // touch, a bounce of it, is dropped by the new debounce.
        var before = EventScript()
        before.slot(0, id: 1, x: 500, y: 250)
        before.report()
        before.at(1_100_000)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(holdDuration: .milliseconds(300)))
        rig.run(before.events, until: 1_100_000)
        var sink = rig.sink
        rig.pipeline.cancelAll(at: Timestamp(microseconds: 1_100_000), into: &sink)
        rig.sink = sink
        rig.pipeline = DevicePipeline(
            device: hygieneScreen, geometry: DeviceGeometry(), configuration: EngineConfiguration(),
            touch: TouchHygieneSettings(debounce: .milliseconds(40)), replacing: rig.pipeline)
        var after = EventScript()
        after.at(1_150_000)
        after.slot(0, x: 501, y: 250)
        after.report()
        after.at(1_500_000)
        after.slot(0, x: 502)
        after.report()
        after.slot(0, id: -1)
        after.report()
        after.at(1_520_000)
        after.press(id: 2, x: 500, y: 250, duration: 50 * Self.ms)
        rig.run(after.events, until: 3_000_000)
        #expect(rig.sink.reasons == [.bounce])
        // The held touch came to the engine (unobserved, after the reload) at its deadline.
        let begins = rig.sink.frames.flatMap { $0.contacts.filter { $0.phase == .began } }
        #expect(begins.count == 1)
        #expect(rig.sink.frames.first { $0.contacts.contains { $0.phase == .began } }?.time == Timestamp(microseconds: 1_300_000))
        #expect(rig.cloneTrackingIDs == [1])
    }

    // MARK: Wake-swallow

    /// Regression: the pass-through filter armed for the wake touch gave the wake to the
    /// first touch-down, even one touch hygiene dropped, so the next (real) touch reached
    /// the app while waking the screen. A dropped touch wakes nothing now.
    @Test func aDroppedTouchIsNotTheWakeTouch() {
        var first = EventScript()
        first.press(id: 1, x: 500, y: 250, duration: 60 * Self.ms)
        var rig = HygieneRig(hygieneScreen, TouchHygieneSettings(debounce: .milliseconds(40)), wakeSwallow: true)
        rig.run(first.events)
        rig.filter.idle()
        var then = EventScript()
        then.at(first.time + 10 * Self.ms)
        then.press(id: 2, x: 500, y: 250, duration: 60 * Self.ms)
        then.at(then.time + 500 * Self.ms)
        then.press(id: 3, x: 500, y: 250, duration: 60 * Self.ms)
        then.at(then.time + 500 * Self.ms)
        then.press(id: 4, x: 500, y: 250, duration: 60 * Self.ms)
        rig.run(then.events)
        #expect(rig.sink.reasons == [.bounce])
        // 2 is the bounce, 3 the wake touch (reserved), 4 reaches the clone.
        #expect(rig.cloneTrackingIDs == [1, 4])
    }

    // MARK: Storage

    @Test func hiddenTouchesHoldEverySource() {
        var hidden = HiddenTouches.none
        for source in [0, 63, 64, 200, 255] { hidden.insert(source) }
        hidden.insert(256)
        hidden.insert(-1)
        #expect((0..<300).filter { hidden.contains($0) } == [0, 63, 64, 200, 255])
    }
}
