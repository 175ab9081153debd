import GestureProtocol
import GestureTestSupport
import Testing

@testable import GestureCore

/// Press brackets everything, on every path: gestures end or are cancelled before
/// the press of their touch; after SYN_DROPPED a finger still down never drags without a press.
@Suite("press brackets")
struct PressBracketTests {
    static func event(_ kind: GestureKind, _ phase: GesturePhase, id: UInt64, time: Timestamp, touch: UInt32, region: String? = nil)
        -> GestureEvent
    {
        let still = DragValues(
            startLocation: .zero, translation: .zero, velocity: .zero, predictedEndLocation: .zero, predictedEndTranslation: .zero)
        let details: GestureDetails =
            switch kind {
            case .press: .press
            case .tap: .tap(count: 1)
            case .longPress: .longPress
            case .drag: .drag(still)
            case .swipe: .swipe(direction: .left, edge: nil, drag: still)
            case .pinch: .pinch(scale: 1, velocity: 0)
            case .rotate: .rotate(degrees: 0, velocity: 0)
            }
        return GestureEvent(details, phase: phase, id: id, time: time, region: region, fingers: 1, location: .zero, touch: touch)
    }

    @Test func everyCancellationPathEndsThePressLast() {
        // Palm.
        var palm = GestureHarness()
        palm.frame(0, .down(1, 0.3, 0.5))
        palm.frame(20, .move(1, 0.4, 0.5))
        palm.frame(30, .cancel(1))
        #expect(palm.summary == ["press.began", "drag.began", "drag.cancelled", "press.cancelled"])
        // SYN_DROPPED or device removed (cancelAll), also with a long press and a pinch in flight.
        var dropped = GestureHarness()
        dropped.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))
        dropped.advance(to: 600)
        dropped.cancelAll(at: 700)
        #expect(dropped.summary == ["press.began", "long-press.began", "long-press.cancelled", "press.cancelled"])
        var pinching = GestureHarness()
        pinching.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))
        pinching.frame(10, .move(1, 0.40, 0.5), .move(2, 0.60, 0.5))  // a pinch, then its drift: a drag
        pinching.frame(15, .move(1, 0.40, 0.45), .move(2, 0.60, 0.45))
        pinching.cancelAll(at: 20)
        #expect(pinching.summary.last == "press.cancelled")
        #expect(Set(pinching.summary.dropFirst().dropLast()) == ["pinch.began", "drag.began", "pinch.cancelled", "drag.cancelled"])
        for h in [palm, dropped, pinching] {
            #expect(GestureStreamValidator.violations(in: h.events).isEmpty)
        }
    }

    @Test func aFingerStillDownAfterSYNDroppedNeverDragsWithoutAPress() {
        var engine = GestureEngine(configuration: EngineConfiguration(), surface: GestureHarness.surface)
        var sink = CollectingSink()
        func frame(_ ms: UInt64, _ contact: Contact) {
            engine.process(
                TouchFrame(time: Timestamp(microseconds: ms * 1000), contacts: [contact], fingerCount: contact.phase == .ended ? 0 : 1),
                into: &sink)
        }
        func finger(_ id: UInt32, _ phase: TouchPhase, x: Double, unobserved: Bool = false) -> Contact {
            Contact(
                id: id, phase: phase, location: Point(x: x, y: 0.5), surfaceLocation: SurfacePoint(millimetresX: x * 200, y: 50),
                startedUnobserved: unobserved)
        }
        frame(0, finger(1, .began, x: 0.3))
        frame(20, finger(1, .moved, x: 0.35))
        engine.cancelAll(at: 30_000, into: &sink)  // SYN_DROPPED
        // The tracker hands the finger back as a new, unobserved contact; it keeps moving.
        for step in 1...10 {
            frame(30 + UInt64(step) * 10, finger(2, step == 1 ? .began : .moved, x: 0.35 + Double(step) * 0.03, unobserved: true))
        }
        frame(140, finger(2, .ended, x: 0.65))
        #expect(
            sink.events.map { "\($0.kind.rawValue).\($0.phase.rawValue)" }
                == ["press.began", "drag.began", "drag.cancelled", "press.cancelled"])
        // The next touch is a fresh one with its own press.
        frame(500, finger(3, .began, x: 0.5))
        frame(550, finger(3, .ended, x: 0.5))
        #expect(sink.events.suffix(3).map(\.kind) == [.press, .tap, .press])
        #expect(GestureStreamValidator.violations(in: sink.events).isEmpty)
    }

    @Test func validatorFindsADragWithoutAPress() {
        let events = [
            Self.event(.drag, .began, id: 1, time: 10, touch: 7),
            Self.event(.drag, .ended, id: 1, time: 20, touch: 7),
        ]
        #expect(GestureStreamValidator.violations(in: events).map(\.message) == ["a gesture of a touch that never pressed"])
        #expect(GestureStreamValidator.violations(in: events, requirePress: false).isEmpty)
    }

    /// A press and a gesture of one touch, the gesture ending with `end` after the press
    /// ends with `pressEnd` at the same moment.
    static func pressThenGesture(_ kind: GestureKind, pressEnd: GesturePhase, end: GesturePhase) -> [GestureEvent] {
        [
            event(.press, .began, id: 1, time: 0, touch: 3, region: "b"),
            event(kind, .began, id: 2, time: 500, touch: 3, region: "b"),
            event(.press, pressEnd, id: 1, time: 600, touch: 3, region: "b"),
            event(kind, end, id: 2, time: 600, touch: 3, region: "b"),
        ]
    }

    @Test func validatorFindsAPressEndingBeforeItsGestures() {
        let cancelled = Self.pressThenGesture(.drag, pressEnd: .cancelled, end: .cancelled)
        #expect(GestureStreamValidator.violations(in: cancelled).map(\.message) == ["cancelled after its press (the press must come last)"])
        // The other order is the promise.
        #expect(GestureStreamValidator.violations(in: [cancelled[0], cancelled[1], cancelled[3], cancelled[2]]).isEmpty)
        let ended = Self.pressThenGesture(.longPress, pressEnd: .ended, end: .ended)
        #expect(GestureStreamValidator.violations(in: ended).map(\.message) == ["press ended before the long-press of its touch"])
    }

    /// Found by the engine fuzzer: a long press that has begun goes on after its finger
    /// leaves a small region (whose press is cancelled for it), and the touch is cancelled
    /// at that same moment. The long press ends after the press, rightly: the press was
    /// released by the leaving, not cancelled with the touch.
    @Test func aLongPressOutlivesThePressOfARegionItsFingerLeft() {
        var corner = Region(name: "corner", rect: Rect(x: 0.4, y: 0.4, width: 0.05, height: 0.05))
        corner.settings = GestureSettings()
        var h = GestureHarness(EngineConfiguration(regions: [corner]))
        h.frame(0, .down(1, 0.425, 0.425))
        h.advance(to: 600)
        h.frame(700, .move(1, 0.6, 0.6))
        h.cancelAll(at: 700)
        #expect(
            h.summary.filter { !$0.hasSuffix(".changed") }
                == ["press.began", "long-press.began", "press.cancelled", "long-press.cancelled"])
        #expect(h.events(.press).last?.pressCancellation == .released)
        #expect(GestureStreamValidator.violations(in: h.events).isEmpty)
        // Without the leaving, the same cancellation ends the long press first and the press
        // last, as a cancelled touch must.
        var held = GestureHarness(EngineConfiguration(regions: [corner]))
        held.frame(0, .down(1, 0.425, 0.425))
        held.advance(to: 600)
        held.cancelAll(at: 700)
        #expect(held.summary == ["press.began", "long-press.began", "long-press.cancelled", "press.cancelled"])
        #expect(held.events(.press).last?.pressCancellation == .touchCancelled)
        #expect(GestureStreamValidator.violations(in: held.events).isEmpty)
    }

    @Test func validatorAcceptsAPressLeftBehindByAnEnclosingRegionsDrag() {
        // The button's press is cancelled when the page's drag takes the touch; the drag goes on.
        let events = [
            Self.event(.press, .began, id: 1, time: 0, touch: 3, region: "button"),
            Self.event(.drag, .began, id: 2, time: 10, touch: 3, region: "page"),
            Self.event(.press, .cancelled, id: 1, time: 10, touch: 3, region: "button"),
            Self.event(.drag, .ended, id: 2, time: 90, touch: 3, region: "page"),
        ]
        #expect(GestureStreamValidator.violations(in: events).isEmpty)
        var twice = events
        twice.insert(Self.event(.press, .began, id: 5, time: 5, touch: 4, region: "button"), at: 1)
        #expect(GestureStreamValidator.violations(in: twice).map(\.message).first == "a second press in a region whose press is open")
    }
}
