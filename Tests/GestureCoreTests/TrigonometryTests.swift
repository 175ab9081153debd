import GestureProtocol
import Testing

@testable import GestureCore

@Suite("trigonometry")
struct TrigonometryTests {
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
}
