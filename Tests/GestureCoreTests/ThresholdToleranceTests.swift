import GestureProtocol
import GestureTestSupport
import Testing

@testable import GestureCore

@Suite("thresholds with tolerance")
struct ThresholdToleranceTests {
    /// A stroke of exactly `length` mm at exactly `speed` mm/s from `start` (mm), frames
    /// every 10 ms, lifted with the last move.
    static func stroke(from start: Point, length: Double, speed: Double, settings: GestureSettings) -> [GestureEvent] {
        var h = GestureHarness(settings: settings)
        let surface = GestureHarness.surface
        let startPoint = Point(x: start.x / surface.width, y: start.y / surface.height)
        let steps = Int((length / speed * 100).rounded())  // 10 ms per step
        h.frame(0, .down(1, startPoint.x, startPoint.y))
        for step in 1...steps {
            let travelled = length * Double(step) / Double(steps)
            h.frame(Double(step) * 10, .move(1, (start.x + travelled) / surface.width, startPoint.y))
        }
        h.frame(Double(steps) * 10, .up(1))
        return h.events
    }

    @Test(arguments: [Point(x: 100, y: 50), Point(x: 50, y: 60), Point(x: 13.7, y: 91.1), Point(x: 161.3, y: 7.9), Point(x: 70.3, y: 33.3)])
    func swipeAtExactlyTheMinimumSpeedAndDistance(start: Point) {
        var settings = GestureSettings()
        settings.swipe.minimumDistance = 30
        settings.swipe.minimumVelocity = 100
        let events = Self.stroke(from: start, length: 30, speed: 100, settings: settings)
        #expect(events.filter { $0.kind == .swipe }.count == 1, "30 mm at 100 mm/s from \(start) mm")
    }

    @Test func justBelowTheMinimumIsNoSwipe() {
        var settings = GestureSettings()
        settings.swipe.minimumDistance = 30.001
        let events = Self.stroke(from: Point(x: 50, y: 60), length: 30, speed: 100, settings: settings)
        #expect(events.filter { $0.kind == .swipe }.isEmpty)
    }

    @Test func comparisonsAllowOnlyRounding() {
        #expect(100.0.reaches(100))
        #expect((100.0 - 1e-12).reaches(100))
        #expect(!(100.0 - 1e-3).reaches(100))
        #expect(!3.0.exceeds(3))
        #expect(!(3.0 + 1e-12).exceeds(3))
        #expect((3.0 + 1e-6).exceeds(3))
    }
}
