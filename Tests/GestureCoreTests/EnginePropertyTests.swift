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
        var h = GestureHarness(configurations[which])
        var down: Set<UInt32> = []
        var ms = 0.0
        for value in script {
            let id = UInt32(value / 8 % 6)
            let x = Double(value / 48 % 100) / 100, y = Double(value / 4_800 % 100) / 100
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
                } else if let some = down.first {
                    h.frame(ms, .move(some, x, y))
                }
            }
        }
        h.cancelAll(at: ms + 1)
        h.advance(to: ms + 10_000)
        #expect(h.engine.nextDeadline == nil)
        return h.events
    }

    static let scripts = Gen.int(in: 0...9_999_999).array(of: 1...120)

    @Test func everyGestureHasLegalPhasesAndClosesOnce() async {
        await propertyCheck(count: 300, input: Self.scripts, Gen.int(in: 0...2)) { script, which in
            let events = Self.run(script, configuration: which)
            var seen: Set<UInt64> = []
            var lastNewID: UInt64 = 0
            for event in events where seen.insert(event.id).inserted {
                #expect(event.id > lastNewID, "ids are handed out in order")
                lastNewID = event.id
            }
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "time never goes back")
            let violations = GestureStreamValidator.violations(in: events)
            #expect(violations.isEmpty, "\(violations.prefix(3))")
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
