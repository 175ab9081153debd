import GestureProtocol


/// Microseconds in one millisecond and one second.
let microsecondsPerMillisecond: Double = 1_000
let microsecondsPerSecond: Double = 1_000_000

/// Converts a configured duration in milliseconds to microseconds (negative or NaN → 0).
func microseconds(fromMilliseconds ms: Double) -> UInt64 {
    guard ms.isFinite, ms > 0 else { return ms == .infinity ? UInt64.max : 0 }
    return UInt64(clamping: (ms * microsecondsPerMillisecond).rounded())
}

extension UInt64 {
    /// The integer part of `value`, clamped to `0...UInt64.max` (NaN gives 0) instead of trapping.
    public init(clamping value: Double) {
        // 2^64 is exactly representable; every double below it converts.
        if value >= 18_446_744_073_709_551_616.0 {
            self = .max
        } else if value > 0 {
            self = UInt64(value)
        } else {
            self = 0
        }
    }

    /// Addition that stops at `UInt64.max` instead of trapping.
    public func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    /// Subtraction that stops at 0 instead of trapping.
    public func saturatingSubtract(_ other: UInt64) -> UInt64 {
        self > other ? self - other : 0
    }
}

/// A set of gesture kinds as bits (a `Set` lookup hashes; this is one AND): what a region
/// enables, reports, or lists in `simultaneous` / `high-priority`.
struct GestureKindSet: Sendable, Hashable {
    private var bits: UInt8 = 0

    static let none = GestureKindSet()

    init() {}

    init(_ kinds: Set<GestureKind>) {
        for kind in kinds { insert(kind) }
    }

    func contains(_ kind: GestureKind) -> Bool { bits & Self.bit(kind) != 0 }
    mutating func insert(_ kind: GestureKind) { bits |= Self.bit(kind) }
    var isEmpty: Bool { bits == 0 }
    func intersection(_ other: GestureKindSet) -> GestureKindSet {
        var intersection = self
        intersection.bits &= other.bits
        return intersection
    }

    private static func bit(_ kind: GestureKind) -> UInt8 {
        switch kind {
        case .press: 1 << 0
        case .tap: 1 << 1
        case .longPress: 1 << 2
        case .drag: 1 << 3
        case .swipe: 1 << 4
        case .pinch: 1 << 5
        case .rotate: 1 << 6
        }
    }
}

/// Threshold comparisons allow for floating-point rounding, so that "≥ 100 mm/s" holds at
/// exactly 100 mm/s and "≥ 10 mm" at exactly 10 mm wherever the stroke starts (the velocity
/// and the accumulated translation are sums of many small terms, whose last bits depend on
/// the absolute position). The slack is relative: 1e-9 of the threshold (at least 1e-9 of
/// its unit), a nanometre on a millimetre threshold, far below any physical meaning.
enum Tolerance {
    static let relative = 1e-9

    /// The rounding slack allowed around `threshold`.
    static func slack(_ threshold: Double) -> Double { relative * max(1, abs(threshold)) }
}

extension Double {
    /// `self ≥ threshold` ("at least"), allowing for rounding.
    func reaches(_ threshold: Double) -> Bool { self >= threshold - Tolerance.slack(threshold) }

    /// `self > threshold` ("more than") by more than rounding.
    func exceeds(_ threshold: Double) -> Bool { self > threshold + Tolerance.slack(threshold) }
}

/// A region's settings converted once to the units the recognizers compare in
/// (microseconds, millimetres, degrees).
struct Thresholds: Sendable {
    var tapSlopMM: Double
    var multiTapIntervalUS: UInt64
    var multiTapDistanceMM: Double
    var tapFingerWindowUS: UInt64
    var exclusiveMultiTap: Bool
    var maximumTapCount: Int
    var longPressDurationUS: UInt64
    var longPressMaximumDistanceMM: Double
    var dragMinimumDistanceMM: Double
    var velocityWindowUS: UInt64
    /// Seconds of travel the predicted end adds per unit of velocity: r / (1 − r) / 1000.
    var projectionSeconds: Double
    var swipeMinimumDistanceMM: Double
    var swipeMinimumVelocityMMPerSecond: Double
    var edgeMarginMM: Double
    var pinchMinimumSpreadChangeMM: Double
    var rotateMinimumDegrees: Double

    init(_ settings: GestureSettings) {
        tapSlopMM = settings.tap.slop
        multiTapIntervalUS = microseconds(fromMilliseconds: settings.tap.multiTapInterval)
        multiTapDistanceMM = settings.tap.multiTapDistance
        tapFingerWindowUS = microseconds(fromMilliseconds: settings.tap.fingerWindow)
        exclusiveMultiTap = settings.tap.exclusive
        maximumTapCount = max(1, settings.tap.maxCount)
        longPressDurationUS = microseconds(fromMilliseconds: settings.longPress.minimumDuration)
        longPressMaximumDistanceMM = settings.longPress.maximumDistance
        dragMinimumDistanceMM = settings.drag.minimumDistance
        velocityWindowUS = max(1, microseconds(fromMilliseconds: settings.drag.velocityWindow))
        let rate = settings.drag.decelerationRate
        projectionSeconds = (rate > 0 && rate < 1) ? rate / (1 - rate) / 1000 : 0
        swipeMinimumDistanceMM = settings.swipe.minimumDistance
        swipeMinimumVelocityMMPerSecond = settings.swipe.minimumVelocity
        edgeMarginMM = settings.swipe.edgeMargin
        pinchMinimumSpreadChangeMM = settings.pinch.minimumSpreadChange
        rotateMinimumDegrees = settings.rotate.minimumAngle
    }
}

/// Emits a region's events and logs its recognizers' transitions. Holds only stored values
/// (the region name is a retained String), so copying it per call costs nothing.
struct Reporter {
    let region: String?
    /// The region's rectangle (nil for the top level), for region-local coordinates.
    let rect: Rect?
    /// What the current touch sequence reports here: the kinds this region owns or runs
    /// simultaneously for it, among those it enables (`RegionRoles`).
    var reported: GestureKindSet
    /// The touch sequence's first contact, stamped on every event (`GestureEvent.touch`).
    var touch: UInt32 = 0
    var log: ((String) -> Void)?

    /// A fresh id for a gesture that will be reported; 0 (no id spent) when it is not.
    func newID<S: GestureSink>(_ kind: GestureKind, _ sink: inout S) -> UInt64 {
        reported.contains(kind) ? sink.nextGestureID() : 0
    }

    func emit<S: GestureSink>(
        _ details: GestureDetails, _ phase: GesturePhase, id: UInt64, time: UInt64,
        fingers: Int, location: Point, pressCancellation: PressCancellation? = nil, into sink: inout S
    ) {
        guard reported.contains(details.kind) else { return }
        sink.emit(GestureEvent(details, phase: phase, id: id, time: time, region: region, fingers: fingers, location: location,
                               regionRect: rect, touch: touch, pressCancellation: pressCancellation))
    }

    /// Logs "region recognizer: old → input → new"; builds no string when nobody listens.
    @inline(__always)
    func transition<State>(_ recognizer: StaticString, _ old: State, _ input: StaticString, _ new: State) {
        guard let log else { return }
        log("\(region ?? "-") \(recognizer): \(old) → \(input) → \(new)")
    }
}

/// Pure-Swift arctangent (GestureCore imports neither Foundation nor libc).
enum Trigonometry {
    static let pi = 3.141592653589793
    static let degreesPerRadian = 180 / pi

    /// atan2(y, x) in radians, in (−π, π]; absolute error below 1e-12.
    static func atan2(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        if ax == 0 && ay == 0 { return 0 }
        let steep = ay > ax
        var angle = atanOfUnit(steep ? ax / ay : ay / ax)
        if steep { angle = pi / 2 - angle }
        if x < 0 { angle = pi - angle }
        return y < 0 ? -angle : angle
    }

    /// atan(t) for t in 0…1.
    private static func atanOfUnit(_ t: Double) -> Double {
        let tanPiOver8 = 0.41421356237309503
        if t > tanPiOver8 { return pi / 4 + atanSeries((t - 1) / (t + 1)) }
        return atanSeries(t)
    }

    /// Taylor series of atan for |z| ≤ tan(π/8), to z^31.
    private static func atanSeries(_ z: Double) -> Double {
        let z2 = z * z
        var term = z
        var sum = 0.0
        var sign = 1.0
        var n = 1.0
        while n <= 31 {
            sum += sign * term / n
            term *= z2
            sign = -sign
            n += 2
        }
        return sum
    }
}
