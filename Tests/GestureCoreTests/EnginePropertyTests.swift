import GestureProtocol
import GestureTestSupport
import PropertyBased
import Testing

@testable import GestureCore

/// Random frame streams decoded from random integers: touch-downs (some unobserved),
/// moves, lifts, palms, timer advances, time going backwards and cancel-alls.
@Suite("engine properties")
struct EnginePropertyTests {
    static let configurations: [EngineConfiguration] = {
        var exclusive = GestureSettings()
        exclusive.tap.exclusive = true
        var small = GestureSettings()
        small.enabled = [.press, .tap, .drag, .pinch]
        small.drag.minimumDistance = 1
        small.tap.slop = 8
        return [
            EngineConfiguration(),
            EngineConfiguration(defaults: exclusive),
            EngineConfiguration(regions: [
                Region(name: "outer", rect: Rect(x: 0, y: 0, width: 0.7, height: 0.7), settings: small),
                Region(name: "inner", rect: Rect(x: 0.2, y: 0.2, width: 0.2, height: 0.2), settings: exclusive),
            ]),
        ]
    }()

    /// Replays `script` on configuration `which`; ends with a cancel-all far in the future.
    static func run(_ script: [Int], configuration which: Int) -> [GestureEvent] {
        run(script, configuration: configurations[which])
    }

    /// Replays `script` on `configuration`. `fingers` fingers (six, or one at a time) come and
    /// go; each touch-down is a new contact id, as a tracker gives them.
    /// `afterEachStep` sees the engine after every frame, advance and cancel-all.
    static func run(
        _ script: [Int], configuration: EngineConfiguration, fingers: Int = 6, log: ((String) -> Void)? = nil,
        afterEachStep: (GestureEngine) -> Void = { _ in }
    ) -> [GestureEvent] {
        var h = GestureHarness(configuration)
        h.engine.transitionLog = log
        var down: Set<UInt32> = []
        var contactOfFinger: [UInt32] = Array(0..<6)
        var nextContact: UInt32 = 6
        var ms = 0.0
        for value in script {
            let finger = value / 8 % fingers
            if value % 8 <= 1 && !down.contains(contactOfFinger[finger]) {
                contactOfFinger[finger] = nextContact
                nextContact += 1
            }
            let id = contactOfFinger[finger]
            let x = Double(value / 48 % 100) / 100
            let y = Double(value / 4_800 % 100) / 100
            ms += Double(1 + value % 37)
            switch value % 8 {
            case 0, 1:
                if down.contains(id) {
                    h.frame(ms, .move(id, x, y))
                } else {
                    down.insert(id)
                    h.frame(ms, value % 5 == 0 ? .downUnobserved(id, x, y) : .down(id, x, y))
                }
            case 2, 3:
                h.frame(ms, down.contains(id) ? .move(id, x, y) : .move(99, 0, 0))
            case 4:
                if down.remove(id) != nil { h.frame(ms, .up(id)) }
            case 5:
                ms += Double(value % 700)
                h.advance(to: ms)
            case 6:
                if value % 3 == 0, down.remove(id) != nil {
                    h.frame(ms, .cancel(id))
                } else if value % 3 == 1 {
                    h.frame(max(0, ms - Double(value % 300)))  // time goes backwards
                } else {
                    h.frame(ms)
                }
            default:
                if value % 11 == 0 {
                    h.cancelAll(at: ms)
                    down.removeAll()
                } else if let some = down.min() {  // min, not first: a Set's order changes from run to run
                    h.frame(ms, .move(some, x, y))
                }
            }
            afterEachStep(h.engine)
        }
        h.cancelAll(at: ms + 1)
        h.advance(to: ms + 10_000)
        #expect(h.engine.nextDeadline == nil)
        return h.events
    }

    static let scripts = Gen.int(in: 0...9_999_999).array(of: 1...120)

    /// Ids handed out in order, time never going back, and the validator's promises.
    static func expectPromises(_ events: [GestureEvent], requirePress: Bool) {
        var seen: Set<UInt64> = []
        var lastNewID: UInt64 = 0
        for event in events where seen.insert(event.id).inserted {
            #expect(event.id > lastNewID, "ids are handed out in order")
            lastNewID = event.id
        }
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "time never goes back")
        let violations = GestureStreamValidator.violations(in: events, requirePress: requirePress)
        #expect(violations.isEmpty, "\(violations.prefix(3))")
    }

    /// A random layout of up to five regions decoded from integers: each nested in an earlier
    /// one (or in the screen), with random enabled kinds, thresholds, `fall-through`,
    /// `simultaneous` and `high-priority`. `requirePress`: every touch gets a press (the
    /// top level enables it, and so does every region that keeps its touches).
    static func layout(_ seeds: [Int], allowSimultaneous: Bool) -> (configuration: EngineConfiguration, requirePress: Bool) {
        let kinds = GestureKind.allCases
        func set(_ bits: Int) -> Set<GestureKind> { Set(kinds.enumerated().filter { bits >> $0.offset & 1 == 1 }.map(\.element)) }
        var regions: [Region] = []
        for (index, seed) in seeds.enumerated() {
            let parent = seed % (regions.count + 1) == 0 ? Rect.unit : regions[seed % (regions.count + 1) - 1].rect
            let fx = Double(seed / 7 % 50) / 100
            let fy = Double(seed / 353 % 50) / 100
            let fw = 0.2 + Double(seed / 17_713 % 50) / 100
            let fh = 0.2 + Double(seed / 887_011 % 50) / 100
            let rect = Rect(
                x: parent.x + fx * parent.width, y: parent.y + fy * parent.height,
                width: min(fw, 1 - fx) * parent.width, height: min(fh, 1 - fy) * parent.height)
            var settings = GestureSettings()
            settings.enabled = set(seed / 3)
            settings.longPress.minimumDuration = [300, 500, 800][seed / 11 % 3]
            settings.drag.minimumDistance = [1, 3, 8][seed / 13 % 3]
            settings.tap.slop = [2, 3, 10][seed / 19 % 3]
            let simultaneous = allowSimultaneous ? settings.enabled.intersection(set(seed / 29)) : []
            let highPriority = settings.enabled.subtracting(simultaneous).intersection(set(seed / 31))
            regions.append(
                Region(
                    name: "r\(index)", rect: rect, settings: settings, fallThrough: seed / 23 % 4 != 0,
                    simultaneous: simultaneous, highPriority: highPriority))
        }
        let requirePress = regions.allSatisfy { $0.fallThrough || $0.settings.enabled.contains(.press) }
        return (EngineConfiguration(regions: regions), requirePress)
    }

    static let layouts = Gen.int(in: 0...999_999_999).array(of: 1...5)

    @Test func nestedRegionLayoutsKeepEveryPromise() async {
        await propertyCheck(count: 500, input: Self.scripts, Self.layouts) { script, seeds in
            let (configuration, requirePress) = Self.layout(seeds, allowSimultaneous: true)
            let events = Self.run(script, configuration: configuration)
            Self.expectPromises(events, requirePress: requirePress)
            for event in events {
                let region = configuration.regions.first { $0.name == event.region }
                #expect(event.regionRect == region?.rect, "local coordinates are relative to the reporting region")
            }
        }
    }

    @Test func acrossRegionsNoTouchIsBothTapAndLongPress() async {
        await propertyCheck(count: 500, input: Self.scripts, Self.layouts) { script, seeds in
            // Without `simultaneous`, one arena decides each touch across its regions. One
            // finger at a time: a second finger's own tap beside a first finger's long press
            // is two touches, though the second joins the first's press.
            let (configuration, _) = Self.layout(seeds, allowSimultaneous: false)
            let events = Self.run(script, configuration: configuration, fingers: 1)
            let tapped = Set(events.filter { $0.kind == .tap }.map(\.touch))
            let held = Set(events.filter { $0.kind == .longPress && $0.phase == .began }.map(\.touch))
            #expect(tapped.isDisjoint(with: held), "touches \(tapped.intersection(held)) became a tap and a long press")
        }
    }

    /// `nextDeadline` (kept up to date by each input, not computed when read) is exactly
    /// when the next timer fires: nothing fires a microsecond before it, something is due at
    /// it, and with none nothing ever fires. A deadline left stale by an input fails here.
    @Test func theNextDeadlineIsExactlyWhenTheNextTimerFires() async {
        await propertyCheck(count: 200, input: Self.scripts, Gen.int(in: 0...2)) { script, which in
            _ = Self.run(
                script, configuration: Self.configurations[which],
                afterEachStep: { engine in
                    var sink = CollectingSink()
                    guard let deadline = engine.nextDeadline else {
                        var later = engine
                        later.advance(to: Timestamp(microseconds: UInt64.max / 2), into: &sink)
                        #expect(sink.events.isEmpty, "no deadline, yet a timer fired")
                        return
                    }
                    var before = engine
                    before.advance(to: Timestamp(microseconds: max(deadline.microseconds, 1) - 1), into: &sink)
                    #expect(sink.events.isEmpty && before.nextDeadline == deadline, "a timer fired before the deadline")
                    var at = engine
                    at.advance(to: deadline, into: &sink)
                    #expect((at.nextDeadline ?? .distantFuture) > deadline, "the deadline's timer did not fire")
                })
        }
    }

    @Test func everyGestureHasLegalPhasesAndClosesOnce() async {
        await propertyCheck(count: 300, input: Self.scripts, Gen.int(in: 0...2)) { script, which in
            let events = Self.run(script, configuration: which)
            Self.expectPromises(events, requirePress: true)
        }
    }

    @Test func noTouchSequenceIsBothTapAndLongPress() async {
        await propertyCheck(count: 300, input: Self.scripts) { script in
            // Non-exclusive defaults: a sequence's tap is reported inside its press.
            let events = Self.run(script, configuration: 0)
            var inside: [GestureKind]?
            for event in events {
                if event.kind == .press {
                    switch event.phase {
                    case .began: inside = []
                    case .changed: break
                    case .ended, .cancelled:
                        if let kinds = inside {
                            #expect(!(kinds.contains(.tap) && kinds.contains(.longPress)), "\(kinds)")
                        }
                        inside = nil
                    }
                } else {
                    inside?.append(event.kind)
                }
            }
        }
    }
}
