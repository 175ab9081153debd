import GestureProtocol
import Testing

@testable import GestureCore

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
