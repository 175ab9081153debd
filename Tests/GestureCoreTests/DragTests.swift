import GestureProtocol
import Testing

@testable import GestureCore

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
