import GestureProtocol
import Testing

@testable import GestureCore

@Suite("typed length, speed and angle")
struct UnitTests {
    @Test func surfaceVectorsHaveLengthsInMillimetres() {
        let a = SurfacePoint(millimetresX: 1, y: 2)
        let b = SurfacePoint(millimetresX: 4, y: 6)
        #expect(a.distance(to: b) == .millimetres(5))
        #expect((b - a) / 2 == SurfacePoint(millimetresX: 1.5, y: 2))
        #expect(Length.millimetres(3) / Length.millimetres(4) == 0.75)
        #expect(Length.millimetres(-2).magnitude == .millimetres(2))
    }

    /// Lengths compare as their numbers do, NaN included (not as Comparable's defaults).
    @Test func lengthComparisonsAreIEEEComparisons() {
        let nan = Length.millimetres(.nan)
        let one = Length.millimetres(1)
        #expect(!(nan >= one) && !(nan <= one) && !(nan > one) && !(nan < one))
        #expect(one >= one && one <= one && !(one > one))
    }

    @Test func velocityAndSpeed() {
        let velocity = SurfaceVelocity(perSecond: SurfacePoint(millimetresX: -30, y: 40))
        #expect(velocity.x == .millimetresPerSecond(-30))
        #expect(velocity.speed == .millimetresPerSecond(50))
        #expect(velocity.speed.reaches(.millimetresPerSecond(50)))
        #expect(!velocity.speed.reaches(.millimetresPerSecond(50.001)))
    }

    @Test func anglesFromRadiansAndTurns() {
        #expect(abs(Angle.radians(Trigonometry.pi / 2).degrees - 90) < 1e-12)
        // A quarter turn clockwise on screen (y points down): +x onto +y.
        let quarter = Trigonometry.angle(from: SurfacePoint(millimetresX: 1, y: 0), to: SurfacePoint(millimetresX: 0, y: 3))
        #expect(abs(quarter.degrees - 90) < 1e-12)
        let back = Trigonometry.angle(from: SurfacePoint(millimetresX: 0, y: 3), to: SurfacePoint(millimetresX: 1, y: 0))
        #expect(abs(back.degrees + 90) < 1e-12)
        #expect((Angle.degrees(-30) + .degrees(10)).magnitude == .degrees(20))
    }

    /// The configuration's numbers (ms, mm, mm/s, degrees) become typed values once, each
    /// in its own unit and from its own key.
    @Test func thresholdsTakeEachSettingInItsUnit() {
        var settings = GestureSettings()
        settings.tap.slop = 1
        settings.tap.multiTapDistance = 2
        settings.longPress.maximumDistance = 3
        settings.drag.minimumDistance = 4
        settings.swipe.minimumDistance = 5
        settings.swipe.minimumVelocity = 6
        settings.swipe.edgeMargin = 7
        settings.pinch.minimumSpreadChange = 8
        settings.rotate.minimumAngle = 9
        settings.tap.multiTapInterval = 10
        let thresholds = Thresholds(settings)
        #expect(thresholds.tapSlop == .millimetres(1))
        #expect(thresholds.multiTapDistance == .millimetres(2))
        #expect(thresholds.longPressMaximumDistance == .millimetres(3))
        #expect(thresholds.dragMinimumDistance == .millimetres(4))
        #expect(thresholds.swipeMinimumDistance == .millimetres(5))
        #expect(thresholds.swipeMinimumVelocity == .millimetresPerSecond(6))
        #expect(thresholds.edgeMargin == .millimetres(7))
        #expect(thresholds.pinchMinimumSpreadChange == .millimetres(8))
        #expect(thresholds.rotateMinimumAngle == .degrees(9))
        #expect(thresholds.multiTapInterval == .microseconds(10_000))
    }
}
