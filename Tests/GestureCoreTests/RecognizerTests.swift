import GestureProtocol
import Testing

@testable import GestureCore

@Suite("press, tap, long press")
struct TapAndPressTests {
    @Test func singleTapReportsPressAroundTap() {
        var h = GestureHarness()
        h.tap(1, 0.5, 0.5, at: 0)
        #expect(h.summary == ["press.began", "tap.ended", "press.ended"])
        let tap = h.events(.tap)[0]
        #expect(tap.fingers == 1 && tap.region == nil && tap.time == 80_000)
        #expect(tap.location == Point(x: 0.5, y: 0.5))
        #expect(h.taps() == [1])
        #expect(h.events[0].id == h.events[2].id && h.events[1].id != h.events[0].id)
        #expect(h.engine.nextDeadline == nil)
    }

    @Test func liftJustBeforeDeadlineIsTapOnly() {
        var h = GestureHarness()
        h.tap(1, 0.5, 0.5, at: 0, duration: 499)
        h.advance(to: 2000)
        #expect(h.events(.tap).count == 1)
        #expect(h.events(.longPress).isEmpty)
    }

    @Test func longPressBeginsAtDeadlineWhileHeldAndEndsOnRelease() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        #expect(h.engine.nextDeadline == 500_000)
        h.advance(to: 499.999)
        #expect(h.events(.longPress).isEmpty)
        h.advance(to: 700)  // no frames: the timer alone begins it, stamped with its deadline
        let began = h.events(.longPress)
        #expect(began.count == 1 && began[0].phase == .began && began[0].time == 500_000)
        h.frame(800, .move(1, 0.6, 0.5))
        h.frame(900, .up(1))
        #expect(h.summary == ["press.began", "long-press.began", "long-press.changed", "long-press.ended", "press.ended"])
        #expect(h.events(.tap).isEmpty && h.events(.drag).isEmpty)
    }

    @Test func frameAfterDeadlineFiresTimerFirst() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(650, .up(1))
        #expect(h.summary == ["press.began", "long-press.began", "long-press.ended", "press.ended"])
        #expect(h.events(.longPress)[0].time == 500_000)
        #expect(h.events(.longPress)[1].time == 650_000)
    }

    @Test func movedPastSlopThenHeldNeverLongPresses() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(50, .move(1, 0.53, 0.5))  // 6 mm
        h.advance(to: 2000)
        h.frame(2100, .up(1))
        #expect(h.events(.longPress).isEmpty)
        #expect(h.events(.tap).isEmpty)
        #expect(h.events(.drag).map(\.phase) == [.began, .ended])
    }

    @Test func smallWobbleWithinSlopStillTaps() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(30, .move(1, 0.505, 0.51))  // 1 mm, 1 mm
        h.frame(60, .up(1))
        #expect(h.taps() == [1])
        #expect(h.events(.drag).isEmpty)
    }

    @Test func doubleAndTripleTapThenRestart() {
        var h = GestureHarness()
        h.tap(1, 0.5, 0.5, at: 0)
        h.tap(2, 0.51, 0.5, at: 200)
        h.tap(3, 0.5, 0.51, at: 400)
        h.tap(4, 0.5, 0.5, at: 600)
        #expect(h.taps() == [1, 2, 3, 1])
    }

    @Test func tapsTooFarApartInTimeOrSpaceCountOne() {
        var h = GestureHarness()
        h.tap(1, 0.5, 0.5, at: 0)
        h.tap(2, 0.5, 0.5, at: 500)  // 420 ms after lift > 300
        h.tap(3, 0.6, 0.5, at: 700)  // 20 mm away > 10
        #expect(h.taps() == [1, 1, 1])
    }

    @Test func multiTapNeedsSameFingerCount() {
        var h = GestureHarness()
        h.tap(1, 0.5, 0.5, at: 0)
        h.frame(200, .down(2, 0.5, 0.5), .down(3, 0.52, 0.5))
        h.frame(260, .up(2), .up(3))
        #expect(h.taps() == [1, 1])
        #expect(h.events(.tap).map(\.fingers) == [1, 2])
    }

    @Test func twoAndThreeFingerTaps() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.4, 0.5))
        h.frame(40, .down(2, 0.45, 0.5))
        h.frame(100, .up(1))
        h.frame(120, .up(2))
        h.frame(1000, .down(3, 0.3, 0.3), .down(4, 0.35, 0.3), .down(5, 0.4, 0.3))
        h.frame(1090, .up(3), .up(4), .up(5))
        #expect(h.events(.tap).map(\.fingers) == [2, 3])
        #expect(h.events(.press).count == 4)
        #expect(abs(h.events(.tap)[0].location.x - 0.425) < 1e-9)
    }

    @Test func fingerJoiningAfterWindowIsNoTap() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.4, 0.5))
        h.frame(200, .down(2, 0.45, 0.5))
        h.frame(250, .up(1), .up(2))
        #expect(h.events(.tap).isEmpty)
    }

    @Test func touchpadCountedFingersMakeMultiFingerTap() {
        var h = GestureHarness()
        h.extraFingers = 2
        h.frame(0, .down(1, 0.5, 0.5))
        h.extraFingers = 0
        h.frame(60, .up(1))
        #expect(h.events(.tap).map(\.fingers) == [3])
    }

    @Test func exclusiveDoubleTapReportsOnceAtDeadline() {
        var settings = GestureSettings()
        settings.tap.exclusive = true
        var h = GestureHarness(settings: settings)
        h.tap(1, 0.5, 0.5, at: 0)
        h.tap(2, 0.5, 0.5, at: 200)
        #expect(h.events(.tap).isEmpty)
        #expect(h.engine.nextDeadline == 580_000)
        h.advance(to: 1000)
        #expect(h.taps() == [2])
        #expect(h.events(.tap)[0].time == 580_000)
        #expect(h.engine.nextDeadline == nil)
    }

    @Test func exclusiveReportsAtOnceAtMaximumCount() {
        var settings = GestureSettings()
        settings.tap.exclusive = true
        var h = GestureHarness(settings: settings)
        h.tap(1, 0.5, 0.5, at: 0)
        h.tap(2, 0.5, 0.5, at: 200)
        h.tap(3, 0.5, 0.5, at: 400)
        #expect(h.taps() == [3])
        #expect(h.events(.tap)[0].time == 480_000)
    }

    @Test func exclusiveTapFollowedByDragReportsTheTapWhenTheDragWins() {
        var settings = GestureSettings()
        settings.tap.exclusive = true
        var h = GestureHarness(settings: settings)
        h.tap(1, 0.5, 0.5, at: 0)
        h.frame(150, .down(2, 0.5, 0.5))
        h.frame(200, .move(2, 0.55, 0.5))
        #expect(h.taps() == [1])
        #expect(h.events(.tap)[0].time == 200_000)
        h.frame(250, .up(2))
        h.advance(to: 2000)
        #expect(h.taps() == [1])
    }

    @Test func unobservedContactNeverPressesTapsOrLongPresses() {
        var h = GestureHarness()
        h.frame(0, .downUnobserved(1, 0.5, 0.5))
        h.advance(to: 1000)
        h.frame(1100, .up(1))
        h.frame(1200, .downUnobserved(2, 0.5, 0.5))
        h.frame(1250, .up(2))
        #expect(h.events.isEmpty)
    }

    @Test func disabledDragStillStopsTapping() {
        var settings = GestureSettings()
        settings.enabled.remove(.drag)
        settings.tap.slop = 10
        settings.drag.minimumDistance = 2
        var h = GestureHarness(settings: settings)
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(30, .move(1, 0.52, 0.5))  // 4 mm: within tap slop, beyond drag minimum
        h.frame(60, .up(1))
        #expect(h.summary == ["press.began", "press.ended"])
    }

    @Test func disabledLongPressLetsAHeldTouchDrag() {
        var settings = GestureSettings()
        settings.enabled = [.drag]
        var h = GestureHarness(settings: settings)
        h.frame(0, .down(1, 0.5, 0.5))
        h.advance(to: 800)
        h.frame(900, .move(1, 0.6, 0.5))
        h.frame(950, .up(1))
        #expect(h.summary == ["drag.began", "drag.ended"])
    }

    @Test func transitionLogNamesRecognizerStateAndInput() {
        var h = GestureHarness()
        final class Lines: @unchecked Sendable { var all: [String] = [] }
        let lines = Lines()
        h.engine.transitionLog = { lines.all.append($0) }
        h.tap(1, 0.5, 0.5, at: 0)
        #expect(lines.all.contains { $0.hasPrefix("- tap: possible") && $0.contains("→ recognized →") })
        #expect(lines.all.contains { $0.hasPrefix("- press: idle → touch-down → pressing") })
    }
}

@Suite("regions")
struct RegionTests {
    static let configuration: EngineConfiguration = {
        var container = GestureSettings()
        container.enabled = [.press, .tap, .drag]
        return EngineConfiguration(regions: [
            Region(name: "container", rect: Rect(x: 0, y: 0, width: 1, height: 0.5), settings: container),
            Region(name: "button", rect: Rect(x: 0.4, y: 0.1, width: 0.2, height: 0.2)),
        ])
    }()

    @Test func innermostRegionAloneReacts() {
        var h = GestureHarness(Self.configuration)
        h.tap(1, 0.5, 0.2, at: 0)
        #expect(h.events.allSatisfy { $0.region == "button" })
        #expect(h.summary == ["press.began", "tap.ended", "press.ended"])
        h.tap(2, 0.1, 0.2, at: 1000)
        #expect(h.events.suffix(3).allSatisfy { $0.region == "container" })
        h.tap(3, 0.5, 0.9, at: 2000)
        #expect(h.events.suffix(3).allSatisfy { $0.region == nil })
    }

    @Test func regionsRunConcurrently() {
        var h = GestureHarness(Self.configuration)
        h.frame(0, .down(1, 0.5, 0.2))
        h.frame(10, .down(2, 0.1, 0.4))
        h.frame(40, .move(2, 0.2, 0.4))
        h.frame(60, .up(1))
        h.frame(80, .up(2))
        #expect(h.events.filter { $0.region == "button" }.map(\.kind) == [.press, .tap, .press])
        #expect(h.events.filter { $0.region == "container" }.map(\.kind) == [.press, .drag, .drag, .press])
    }

    @Test func leavingTheRegionCancelsPressAndTap() {
        var h = GestureHarness(Self.configuration)
        h.frame(0, .down(1, 0.59, 0.2))
        h.frame(30, .move(1, 0.61, 0.2))  // 4 mm, out of the button
        h.frame(60, .up(1))
        #expect(h.events(.press).map(\.phase) == [.began, .cancelled])
        #expect(h.events(.tap).isEmpty)
        #expect(h.events.allSatisfy { $0.region == "button" })
    }
}

@Suite("drag and swipe")
struct DragTests {
    @Test func constantSpeedDragVelocityAndPrediction() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.2, 0.5))
        // 0.5 normalised units per second along x (100 mm/s), a frame every 10 ms.
        h.glide(1, from: Point(x: 0.2, y: 0.5), to: Point(x: 0.3, y: 0.5), startingAt: 0, steps: 20, interval: 10)
        let last = h.events(.drag).last!
        let values = last.drag!
        #expect(abs(values.velocity.x - 0.5) < 1e-6)
        #expect(abs(values.velocity.y) < 1e-9)
        #expect(abs(values.translation.x - 0.1) < 1e-9)
        #expect(values.startLocation == Point(x: 0.2, y: 0.5))
        let projection = 0.998 / 0.002 / 1000
        #expect(abs(values.predictedEndTranslation.x - (0.1 + 0.5 * projection)) < 1e-6)
        #expect(abs(values.predictedEndLocation.x - (0.2 + values.predictedEndTranslation.x)) < 1e-9)
        #expect(abs(last.location.x - 0.3) < 1e-9)
        h.frame(205, .up(1))
        let ended = h.events(.drag).last!
        #expect(ended.phase == .ended && abs(ended.drag!.velocity.x - 0.5) < 1e-6)
    }

    @Test func dragPhasesAndIDs() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(10, .move(1, 0.51, 0.5))  // 2 mm: not yet
        h.frame(20, .move(1, 0.52, 0.5))  // 4 mm
        h.frame(30, .move(1, 0.53, 0.5))
        h.frame(40, .up(1))
        #expect(h.summary == ["press.began", "drag.began", "drag.changed", "drag.ended", "press.ended"])
        let drags = h.events(.drag)
        #expect(Set(drags.map(\.id)).count == 1)
        #expect(abs(drags[0].drag!.translation.x - 0.02) < 1e-9)
    }

    @Test func pauseBeforeLiftMeansNoVelocityAndNoSwipe() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.2, 0.5))
        h.glide(1, from: Point(x: 0.2, y: 0.5), to: Point(x: 0.5, y: 0.5), startingAt: 0, steps: 10, interval: 10)
        h.frame(200, .up(1))
        #expect(h.events(.drag).last!.drag!.velocity == .zero)
        #expect(h.events(.swipe).isEmpty)
    }

    @Test func swipeDirectionAndEdge() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.01, 0.5))  // 2 mm from the left edge
        h.glide(1, from: Point(x: 0.01, y: 0.5), to: Point(x: 0.3, y: 0.52), startingAt: 0, steps: 10, interval: 10)
        h.frame(105, .up(1))
        let swipe = h.events(.swipe)
        #expect(swipe.count == 1)
        #expect(h.summary.suffix(3) == ["drag.ended", "swipe.ended", "press.ended"])
        guard case .swipe(let direction, let edge, let values)? = swipe.first?.details else {
            Issue.record("no swipe")
            return
        }
        #expect(direction == .right && edge == .left)
        #expect(values == h.events(.drag).last!.drag!)

        var up = GestureHarness()
        up.frame(0, .down(1, 0.5, 0.6))
        up.glide(1, from: Point(x: 0.5, y: 0.6), to: Point(x: 0.52, y: 0.2), startingAt: 0, steps: 8, interval: 10)
        up.frame(85, .up(1))
        guard case .swipe(let direction2, let edge2, _)? = up.events(.swipe).first?.details else {
            Issue.record("no upward swipe")
            return
        }
        #expect(direction2 == .up && edge2 == nil)
    }

    @Test func slowDragIsNoSwipe() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.2, 0.5))
        // 20 mm in 1 s: 20 mm/s < 100 mm/s.
        h.glide(1, from: Point(x: 0.2, y: 0.5), to: Point(x: 0.3, y: 0.5), startingAt: 0, steps: 50, interval: 20)
        h.frame(1005, .up(1))
        #expect(h.events(.drag).count > 2)
        #expect(h.events(.swipe).isEmpty)
    }

    @Test func fingerJoiningADragDoesNotJump() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.2, 0.5))
        h.frame(10, .move(1, 0.25, 0.5))
        h.frame(20, .down(2, 0.6, 0.6))
        h.frame(30, .move(1, 0.26, 0.5), .move(2, 0.61, 0.6))
        h.frame(40, .up(1))
        h.frame(50, .move(2, 0.62, 0.6))
        let translations = h.events(.drag).map { $0.drag!.translation.x }
        #expect(translations.count == 5)
        for (a, b) in zip(translations, translations.dropFirst()) {
            #expect(b - a >= -1e-9 && b - a <= 0.0100001)
        }
        #expect(abs(translations.last! - 0.07) < 1e-9)
        #expect(h.events(.drag).map(\.fingers) == [1, 2, 2, 2, 1])
    }
}

@Suite("pinch and rotate")
struct TransformTests {
    /// Two fingers at `radius` mm either side of (100, 50) mm at `angle` degrees.
    static func fingers(radius: Double, degrees: Double) -> (Point, Point) {
        let radians = degrees * Trigonometry.pi / 180
        // cos/sin from atan-free identities would be overkill: use a series.
        func cos(_ x: Double) -> Double {
            var s = 1.0
            var t = 1.0
            for n in stride(from: 2.0, through: 30, by: 2) {
                t *= -x * x / ((n - 1) * n)
                s += t
            }
            return s
        }
        func sin(_ x: Double) -> Double {
            var s = x
            var t = x
            for n in stride(from: 3.0, through: 31, by: 2) {
                t *= -x * x / ((n - 1) * n)
                s += t
            }
            return s
        }
        let dx = radius * cos(radians) / 200
        let dy = radius * sin(radians) / 100
        return (Point(x: 0.5 + dx, y: 0.5 + dy), Point(x: 0.5 - dx, y: 0.5 - dy))
    }

    @Test func pinchScaleDoubles() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))  // 20 mm apart
        for step in 1...10 {
            let (a, b) = Self.fingers(radius: 10 + Double(step), degrees: 0)
            h.frame(Double(step) * 10, .move(1, b.x, b.y), .move(2, a.x, a.y))
        }
        h.frame(120, .up(1), .up(2))
        let pinch = h.events(.pinch)
        #expect(pinch.first?.phase == .began)
        #expect(pinch.last?.phase == .ended)
        // Began at the first step (radius 10 → 11: 10 %, 1 mm) with scale 1: measured from
        // there, the spread doubled-and-more ends at 20 / 11.
        #expect(pinch.first?.scale == 1)
        guard case .pinch(let scale, _)? = pinch.last?.details else {
            Issue.record("no pinch")
            return
        }
        #expect(abs(scale - 20 / 11) < 1e-9)
        #expect(h.events(.rotate).isEmpty)
        #expect(h.events(.tap).isEmpty && h.events(.longPress).isEmpty)
    }

    @Test func rotateClockwiseNinetyDegrees() {
        var h = GestureHarness()
        let (a0, b0) = Self.fingers(radius: 15, degrees: 0)
        h.frame(0, .down(1, a0.x, a0.y), .down(2, b0.x, b0.y))
        for step in 1...18 {
            let (a, b) = Self.fingers(radius: 15, degrees: Double(step) * 10)  // y down: clockwise
            h.frame(Double(step) * 10, .move(1, a.x, a.y), .move(2, b.x, b.y))
        }
        h.frame(200, .up(1), .up(2))
        let rotate = h.events(.rotate)
        #expect(rotate.first?.phase == .began)
        #expect(rotate.first?.rotation == 0)
        guard case .rotate(let degrees, _)? = rotate.last?.details else {
            Issue.record("no rotate")
            return
        }
        // Began after the first 10° step, at 0: 170° more, past 180 since the touch-down
        // without wrapping.
        #expect(abs(degrees - 170) < 1e-6)
        #expect(h.events(.pinch).isEmpty)
    }

    @Test func liftingToOneFingerEndsPinch() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))
        h.frame(10, .move(1, 0.40, 0.5), .move(2, 0.60, 0.5))
        h.frame(20, .up(2))
        #expect(h.events(.pinch).map(\.phase) == [.began, .ended])
        h.frame(30, .up(1))
        #expect(h.events(.pinch).count == 2)
    }
}

@Suite("cancellation and time")
struct CancellationTests {
    @Test func palmCancelsEveryGestureOfItsSequence() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))
        h.frame(10, .move(1, 0.40, 0.5), .move(2, 0.60, 0.5))  // pinch
        h.frame(15, .move(1, 0.40, 0.45), .move(2, 0.60, 0.45))  // and drag
        h.frame(20, .cancel(2))
        let cancelled = h.events.filter { $0.phase == .cancelled }.map(\.kind)
        #expect(Set(cancelled) == [.press, .pinch, .drag])
        h.frame(30, .move(1, 0.3, 0.3))
        h.frame(40, .up(1))
        #expect(h.events.last?.phase == .cancelled)  // the rest of the sequence is ignored
        h.tap(3, 0.5, 0.5, at: 100)
        #expect(h.taps() == [1])
    }

    @Test func palmCancelsLongPressAndYieldsNoTap() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.advance(to: 600)
        h.frame(700, .cancel(1))
        #expect(h.summary == ["press.began", "long-press.began", "long-press.cancelled", "press.cancelled"])
        var t = GestureHarness()
        t.frame(0, .down(1, 0.5, 0.5))
        t.frame(50, .cancel(1))
        #expect(t.summary == ["press.began", "press.cancelled"])
    }

    @Test func cancelAllCancelsEverythingInFlightAndForgetsContacts() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.2, 0.5))
        h.frame(20, .move(1, 0.3, 0.5))
        h.cancelAll(at: 30)
        #expect(h.summary == ["press.began", "drag.began", "drag.cancelled", "press.cancelled"])
        #expect(h.events.suffix(2).allSatisfy { $0.time == 30_000 })
        #expect(h.engine.nextDeadline == nil)
        h.frame(40)
        #expect(h.events.count == 4)
    }

    /// A held-back exclusive tap already happened: cancelAll reports it at once with the
    /// count it reached, and the interval's timer does not report it again.
    @Test func cancelAllReportsPendingExclusiveTapOnce() {
        var settings = GestureSettings()
        settings.tap.exclusive = true
        var h = GestureHarness(settings: settings)
        h.tap(1, 0.5, 0.5, at: 0)
        #expect(h.events(.tap).isEmpty)
        h.cancelAll(at: 100)
        h.advance(to: 1000)
        let taps = h.events(.tap)
        #expect(taps.count == 1)
        #expect(taps.first?.time == 100_000)
        #expect(taps.first?.details == .tap(count: 1))
        #expect(h.engine.nextDeadline == nil)
    }

    /// A palm in the sequence that continues a held-back double tap: the earlier tap is
    /// reported with its count, the palm's sequence yields no tap.
    @Test func palmAfterExclusiveTapReportsTheHeldBackTap() {
        var settings = GestureSettings()
        settings.tap.exclusive = true
        var h = GestureHarness(settings: settings)
        h.tap(1, 0.5, 0.5, at: 0)
        h.frame(150, .down(2, 0.5, 0.5))
        h.frame(170, .cancel(2))
        h.advance(to: 2000)
        #expect(h.events(.tap).map(\.details) == [.tap(count: 1)])
        #expect(h.events(.tap).first?.time == 170_000)
    }

    @Test func contactStillDownAfterCancelAllComesBackUnobserved() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.engine.cancelAll(at: 10_000, into: &h.sink)
        h.advance(to: 1000)
        h.frame(1100, .up(1))
        #expect(h.summary == ["press.began", "press.cancelled"])
    }

    @Test func nonMonotonicTimeIsClampedToTheLastTime() {
        var h = GestureHarness()
        h.frame(1000, .down(1, 0.5, 0.5))
        h.frame(900, .up(1))  // earlier than the last frame
        #expect(h.events.map(\.time) == [1_000_000, 1_000_000, 1_000_000])
        h.advance(to: 10)
        h.frame(5000, .down(2, 0.5, 0.5))
        h.frame(4000, .move(2, 0.5, 0.5))
        h.advance(to: 100)
        h.frame(6000, .up(2))
        #expect(h.events(.longPress).map(\.time) == [5_500_000, 6_000_000])
        #expect(zip(h.events, h.events.dropFirst()).allSatisfy { $0.time <= $1.time })
    }
}

@Test func atan2MatchesKnownAngles() {
    let pi = Trigonometry.pi
    #expect(abs(Trigonometry.atan2(1, 1) - pi / 4) < 1e-12)
    #expect(abs(Trigonometry.atan2(1, -1) - 3 * pi / 4) < 1e-12)
    #expect(abs(Trigonometry.atan2(-1, -1) + 3 * pi / 4) < 1e-12)
    #expect(abs(Trigonometry.atan2(0, -1) - pi) < 1e-12)
    #expect(abs(Trigonometry.atan2(1, 0) - pi / 2) < 1e-12)
    #expect(abs(Trigonometry.atan2(0.5, 1) - 0.4636476090008061) < 1e-12)
    #expect(Trigonometry.atan2(0, 0) == 0)
}
