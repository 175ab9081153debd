import GestureProtocol

/// A region's settings converted once from the numbers of the configuration file
/// (milliseconds, millimetres, mm/s, degrees) to the typed units the recognizers compare in.
struct Thresholds: Sendable {
    var tapSlop: Length
    var multiTapInterval: TimeSpan
    var multiTapDistance: Length
    var tapFingerWindow: TimeSpan
    var exclusiveMultiTap: Bool
    var maximumTapCount: Int
    var longPressDuration: TimeSpan
    var longPressMaximumDistance: Length
    var dragMinimumDistance: Length
    var velocityWindow: TimeSpan
    /// Seconds of travel the predicted end adds per unit of velocity: r / (1 − r) / 1000.
    var projectionSeconds: Double
    var swipeMinimumDistance: Length
    var swipeMinimumVelocity: Speed
    var edgeMargin: Length
    var pinchMinimumScaleChange: Double
    var pinchMinimumSpreadChange: Length
    var rotateMinimumAngle: Angle
    var rotateMinimumArc: Length

    init(_ settings: GestureSettings) {
        tapSlop = .millimetres(settings.tap.slop)
        multiTapInterval = .milliseconds(settings.tap.multiTapInterval)
        multiTapDistance = .millimetres(settings.tap.multiTapDistance)
        tapFingerWindow = .milliseconds(settings.tap.fingerWindow)
        exclusiveMultiTap = settings.tap.exclusive
        maximumTapCount = max(1, settings.tap.maxCount)
        longPressDuration = .milliseconds(settings.longPress.minimumDuration)
        longPressMaximumDistance = .millimetres(settings.longPress.maximumDistance)
        dragMinimumDistance = .millimetres(settings.drag.minimumDistance)
        velocityWindow = max(.microseconds(1), .milliseconds(settings.drag.velocityWindow))
        let rate = settings.drag.decelerationRate
        projectionSeconds = (rate > 0 && rate < 1) ? rate / (1 - rate) / 1000 : 0
        swipeMinimumDistance = .millimetres(settings.swipe.minimumDistance)
        swipeMinimumVelocity = .millimetresPerSecond(settings.swipe.minimumVelocity)
        edgeMargin = .millimetres(settings.swipe.edgeMargin)
        pinchMinimumScaleChange = settings.pinch.minimumScaleChange
        pinchMinimumSpreadChange = .millimetres(settings.pinch.minimumSpreadChange)
        rotateMinimumAngle = .degrees(settings.rotate.minimumAngle)
        rotateMinimumArc = .millimetres(settings.rotate.minimumArc)
    }
}
