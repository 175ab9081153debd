import GestureClient
import GestureTestSupport

/// Distance between two normalised locations.
func distance(_ a: Point?, _ b: Spot) -> Double {
    guard let a else { return .infinity }
    return ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
}

func describe(_ location: Point?) -> String {
    guard let location else { return "nil" }
    return "(\(rounded(location.x)), \(rounded(location.y)))"
}

func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

/// How far a reported location may be from where the driver put the finger (normalised).
let locationTolerance = 0.03

/// The daemon's defaults the stimuli are judged against (µs): `long-press.minimum-duration`
/// and `tap.multi-tap-interval`, and how close to one a stimulus may come before the case
/// counts it as not delivered as meant.
let longPressMinimum: Int64 = 500_000
let multiTapInterval: Int64 = 300_000
let stimulusMargin: Int64 = 20_000

/// How long the sequence's fingers were down by the kernel's timestamps (press began →
/// press ended), in microseconds.
func held(_ seen: [GestureMessage]) throws(CaseFailure) -> Int64 {
    guard let down = seen.first(where: { $0.gesture == .press && $0.phase == .began }),
        let up = seen.last(where: { $0.gesture == .press && $0.phase != .began })
    else {
        throw CaseFailure("no press began/ended around the sequence: \(seen.map { "\($0.gesture) \($0.phase)" })")
    }
    return elapsed(down.time, up.time)
}

/// A tap is meant: fingers held for `hold` ms, far below the long-press time (500 ms).
/// When the kernel's timestamps show them held that long anyway, the driver was stalled.
func requireTapStimulus(_ seen: [GestureMessage], meant hold: Double) throws(StimulusMissed) {
    guard let heldFor = try? held(seen), heldFor >= longPressMinimum - stimulusMargin else { return }
    throw StimulusMissed(
        "fingers held \(heldFor / 1000) ms by kernel time (meant \(Int(hold)) ms, long press at \(longPressMinimum / 1000))")
}

/// The single-device gestures, on one panel: tap, double tap, long press, drag,
/// swipe, two-finger tap, pinch. Each case waits for the line to be quiet first so the
/// previous case's taps cannot join a multi-tap.
struct GestureCases {
    let panel: TouchPanel
    let subscriber: Subscriber
    let label: String
    /// Where this panel's swipe goes.
    let swipe: (from: Spot, to: Spot, direction: SwipeDirection)

    init(panel: TouchPanel, subscriber: Subscriber, swipe: (from: Spot, to: Spot, direction: SwipeDirection)) {
        self.panel = panel
        self.subscriber = subscriber
        self.swipe = swipe
        label = "\(panel.name), \(panel.touchProtocol.rawValue)\(panel.description.reportedResolution == 0 ? ", resolution 0" : "")"
    }

    private func mine(_ gesture: GestureMessage) -> Bool { gesture.device == panel.name }

    /// Consumes this panel's gestures until `predicate`; others' are ignored.
    private func until(_ what: String, timeout: Double = 10, _ predicate: @escaping (GestureMessage) -> Bool) throws(CaseFailure)
        -> [GestureMessage]
    {
        try subscriber.gestures(until: what, timeout: timeout) { [panel] in $0.device == panel.name && predicate($0) }.filter(mine)
    }

    func settle() { _ = subscriber.drain(quiet: 0.45) }

    /// This panel's gestures up to the end of the touch sequence: the `press` that brackets
    /// everything the sequence produced ends (or is cancelled) last.
    private func sequence(_ what: String) throws(CaseFailure) -> [GestureMessage] {
        try until(what) { $0.gesture == .press && ($0.phase == .ended || $0.phase == .cancelled) }
    }

    func run(_ harness: Harness) {
        harness.run("tap [\(label)]") { try tap() }
        harness.run("double tap [\(label)]") { try doubleTap() }
        harness.run("long press [\(label)]") { try longPress() }
        harness.run("drag [\(label)]") { try drag() }
        harness.run("swipe \(swipe.direction) [\(label)]") { try swipeCase() }
        harness.run("two-finger tap [\(label)]") { try twoFingerTap() }
        harness.run("pinch [\(label)]") { try pinch() }
    }

    func tap() throws {
        settle()
        let spot = Spot(0.3, 0.3)
        try panel.tap([spot], hold: 60)
        let seen = try sequence("the tap's press ended")
        try requireTapStimulus(seen, meant: 60)
        guard let tap = seen.last(where: { $0.gesture == .tap }) else {
            throw CaseFailure("no tap; got \(seen.map { "\($0.gesture) \($0.phase)" })")
        }
        try expect(tap.count == 1 && tap.fingers == 1, "tap count \(tap.count ?? -1) fingers \(tap.fingers), expected 1 and 1")
        try expect(distance(tap.location, spot) < locationTolerance, "tap at \(describe(tap.location)), finger at (0.3, 0.3)")
        try expect(seen.contains { $0.gesture == .press && $0.phase == .began }, "no press began before the tap")
        let others = seen.filter { $0.gesture != .press && $0.gesture != .tap }.map(\.gesture)
        try expect(others.isEmpty, "unexpected \(others) with the tap")
    }

    func doubleTap() throws {
        settle()
        let spot = Spot(0.5, 0.4)
        try panel.tap([spot], hold: 60)
        pause(milliseconds: 100)
        try panel.tap([spot], hold: 60)
        let first = try sequence("the first tap's press ended")
        let second = try sequence("the second tap's press ended")
        try requireTapStimulus(first, meant: 60)
        try requireTapStimulus(second, meant: 60)
        // Lift → touch-down by kernel time: beyond the multi-tap interval they are two single taps.
        if let up = first.last, let down = second.first(where: { $0.gesture == .press }),
            elapsed(up.time, down.time) >= multiTapInterval - stimulusMargin
        {
            throw StimulusMissed(
                "taps \((elapsed(up.time, down.time)) / 1000) ms apart by kernel time (meant 100 ms, multi-tap window \(multiTapInterval / 1000) ms)"
            )
        }
        let taps = (first + second).filter { $0.gesture == .tap }
        try expect(taps.map(\.count) == [1, 2], "tap counts \(taps.map { $0.count ?? -1 }), expected [1, 2]")
    }

    func longPress() throws {
        settle()
        let spot = Spot(0.6, 0.6)
        try panel.frame([0: spot])
        // The finger stays down until `began` is here: it must arrive before the lift is
        // written (the daemon's timer, not the lift, fires it).
        let began: [GestureMessage]
        do {
            began = try until("long-press began while the finger is down", timeout: 10) { $0.gesture == .longPress }
        } catch {
            try? panel.lift()
            throw error
        }
        try panel.lift()
        let press = began.first { $0.gesture == .press && $0.phase == .began }
        let start = began.last!
        try expect(start.phase == .began, "long-press \(start.phase) first, expected began")
        let ended = try until("long-press ended after the lift") { $0.gesture == .longPress && $0.phase != .changed }.last!
        try expect(ended.phase == .ended, "long-press \(ended.phase) after the lift, expected ended")
        try expect(ended.id == start.id, "ended id \(ended.id) ≠ began id \(start.id)")
        // Kernel timestamps: began is stamped with the deadline (touch-down + 500 ms), the
        // ended with the lift's own timestamp, which came later.
        if let press {
            let held = elapsed(press.time, start.time)
            try expect(held >= 500_000 && held < 700_000, "long-press began \(held / 1000) ms after touch-down (kernel time), expected 500")
        }
        try expect(ended.time > start.time, "lift timestamp \(ended.time) not after began \(start.time)")
        let stray = (began + [ended]).filter { $0.gesture == .tap || $0.gesture == .drag }
        try expect(stray.isEmpty, "also got \(stray.map(\.gesture))")
    }

    func drag() throws {
        settle()
        let from = Spot(0.2, 0.5)
        let to = Spot(0.5, 0.55)
        try panel.move(from: [from], to: [to], duration: 400, steps: 20)
        pause(milliseconds: 250)  // still: the velocity at the lift is ~0, so no swipe
        try panel.lift()
        let seen = try until("drag ended") { $0.gesture == .drag && ($0.phase == .ended || $0.phase == .cancelled) }
        let drags = seen.filter { $0.gesture == .drag }
        try expect(drags.first?.phase == .began, "first drag phase \(drags.first.map { "\($0.phase)" } ?? "none"), expected began")
        try expect(drags.contains { $0.phase == .changed }, "no drag changed")
        try expect(Set(drags.map(\.id)).count == 1, "drag phases carry several ids \(Set(drags.map(\.id)))")
        let end = drags.last!
        try expect(end.phase == .ended, "drag \(end.phase)")
        guard let motion = end.drag else { throw CaseFailure("no drag values") }
        try expect(
            distance(motion.startLocation, from) < locationTolerance,
            "startLocation \(describe(motion.startLocation)), finger started at (0.2, 0.5)")
        try expect(distance(end.location, to) < locationTolerance, "location \(describe(end.location)), finger ended at (0.5, 0.55)")
        let t = motion.translation
        try expect(
            abs(t.x - 0.3) < locationTolerance && abs(t.y - 0.05) < locationTolerance, "translation \(describe(t)), expected (0.3, 0.05)")
        try expect(abs(motion.velocity.x) < 0.5, "velocity \(describe(motion.velocity)) after 250 ms still")
        let after = subscriber.drain(quiet: 0.4).compactMap(\.gesture).filter { mine($0) && $0.gesture == .swipe }
        try expect(after.isEmpty, "a swipe followed a drag that stopped before lifting")
    }

    func swipeCase() throws {
        settle()
        try panel.move(from: [swipe.from], to: [swipe.to], duration: 120, steps: 6)
        try panel.lift()
        let seen = try sequence("the swipe's press ended")
        guard let swipeEvent = seen.last(where: { $0.gesture == .swipe }) else {
            // A swipe needs speed at the lift (velocity over the last 100 ms): a driver stalled
            // between its last move and the lift made a still finger.
            let drags = seen.filter { $0.gesture == .drag }
            if let lastMove = drags.last(where: { $0.phase == .changed }), let end = drags.last,
                elapsed(lastMove.time, end.time) >= 40_000
            {
                throw StimulusMissed(
                    "finger still for \((elapsed(lastMove.time, end.time)) / 1000) ms before the lift by kernel time (meant 20 ms)")
            }
            throw CaseFailure("no swipe; got \(seen.map { "\($0.gesture) \($0.phase)" })")
        }
        try expect(
            swipeEvent.direction == swipe.direction,
            "swipe direction \(swipeEvent.direction.map { "\($0)" } ?? "nil"), expected \(swipe.direction)")
        try expect(seen.contains { $0.gesture == .drag && $0.phase == .ended }, "no drag ended before the swipe")
    }

    func twoFingerTap() throws {
        settle()
        try panel.tap([Spot(0.4, 0.3), Spot(0.5, 0.3)], hold: 60)
        let seen = try sequence("the two-finger tap's press ended")
        try requireTapStimulus(seen, meant: 60)
        guard let tap = seen.last(where: { $0.gesture == .tap }) else {
            throw CaseFailure("no tap; got \(seen.map { "\($0.gesture) \($0.phase)" })")
        }
        try expect(tap.fingers == 2 && tap.count == 1, "tap fingers \(tap.fingers) count \(tap.count ?? -1), expected 2 and 1")
        try expect(
            distance(tap.location, Spot(0.45, 0.3)) < locationTolerance,
            "tap at \(describe(tap.location)), expected the centroid (0.45, 0.3)")
    }

    func pinch() throws {
        settle()
        try panel.move(from: [Spot(0.45, 0.5), Spot(0.55, 0.5)], to: [Spot(0.25, 0.5), Spot(0.75, 0.5)], duration: 400, steps: 20)
        pause(milliseconds: 100)
        try panel.lift()
        let seen = try until("pinch ended") { $0.gesture == .pinch && $0.phase != .began && $0.phase != .changed }
        let pinches = seen.filter { $0.gesture == .pinch }
        try expect(pinches.first?.phase == .began, "first pinch phase \(pinches.first.map { "\($0.phase)" } ?? "none")")
        let end = pinches.last!
        try expect(end.phase == .ended, "pinch \(end.phase)")
        let scale = pinches.compactMap(\.scale).max() ?? 0
        try expect(scale > 3 && scale < 7, "largest scale \(rounded(scale)), fingers spread 5×")
        try expect(end.fingers == 2 || pinches.contains { $0.fingers == 2 }, "pinch never had 2 fingers")
    }
}
