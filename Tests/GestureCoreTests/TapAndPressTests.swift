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
