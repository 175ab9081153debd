import GestureProtocol

/// A region's settings converted once to the units the recognizers compare in
/// (microseconds, millimetres, degrees).
struct Thresholds: Sendable {
    var tapSlopMM: Double
    var multiTapInterval: TimeSpan
    var multiTapDistanceMM: Double
    var tapFingerWindow: TimeSpan
    var exclusiveMultiTap: Bool
    var maximumTapCount: Int
    var longPressDuration: TimeSpan
    var longPressMaximumDistanceMM: Double
    var dragMinimumDistanceMM: Double
    var velocityWindow: TimeSpan
    /// Seconds of travel the predicted end adds per unit of velocity: r / (1 − r) / 1000.
    var projectionSeconds: Double
    var swipeMinimumDistanceMM: Double
    var swipeMinimumVelocityMMPerSecond: Double
    var edgeMarginMM: Double
    var pinchMinimumSpreadChangeMM: Double
    var rotateMinimumDegrees: Double

    init(_ settings: GestureSettings) {
        tapSlopMM = settings.tap.slop
        multiTapInterval = .milliseconds(settings.tap.multiTapInterval)
        multiTapDistanceMM = settings.tap.multiTapDistance
        tapFingerWindow = .milliseconds(settings.tap.fingerWindow)
        exclusiveMultiTap = settings.tap.exclusive
        maximumTapCount = max(1, settings.tap.maxCount)
        longPressDuration = .milliseconds(settings.longPress.minimumDuration)
        longPressMaximumDistanceMM = settings.longPress.maximumDistance
        dragMinimumDistanceMM = settings.drag.minimumDistance
        velocityWindow = max(.microseconds(1), .milliseconds(settings.drag.velocityWindow))
        let rate = settings.drag.decelerationRate
        projectionSeconds = (rate > 0 && rate < 1) ? rate / (1 - rate) / 1000 : 0
        swipeMinimumDistanceMM = settings.swipe.minimumDistance
        swipeMinimumVelocityMMPerSecond = settings.swipe.minimumVelocity
        edgeMarginMM = settings.swipe.edgeMargin
        pinchMinimumSpreadChangeMM = settings.pinch.minimumSpreadChange
        rotateMinimumDegrees = settings.rotate.minimumAngle
    }
}
