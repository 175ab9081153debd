import GestureProtocol
import Testing

@testable import GestureCore

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
