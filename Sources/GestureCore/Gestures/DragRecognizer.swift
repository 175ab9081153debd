import GestureProtocol

/// Least-squares velocity over the recent samples of a translation, in a fixed ring (no
/// allocation after init).
struct VelocityTracker {
    struct Sample {
        var time: Timestamp
        var translation: Point
        var translationMM: Point
    }

    /// Samples kept; at 1 kHz this still covers 128 ms.
    static let capacity = 128
    /// A finger that rested this long before lifting throws nothing (Flutter's rule).
    static let stillnessBeforeLift = TimeSpan.microseconds(40_000)

    private var samples: [Sample]
    private var newest = -1
    private var count = 0
    private(set) var lastMotionTime: Timestamp = .zero

    init() {
        samples = Array(repeating: Sample(time: .zero, translation: .zero, translationMM: .zero), count: Self.capacity)
    }

    mutating func reset(time: Timestamp) {
        newest = -1
        count = 0
        lastMotionTime = time
    }

    mutating func add(time: Timestamp, translation: Point, translationMM: Point) {
        newest = (newest + 1) % Self.capacity
        samples[newest] = Sample(time: time, translation: translation, translationMM: translationMM)
        count = min(count + 1, Self.capacity)
        lastMotionTime = time
    }

    /// Velocity per second (normalised, millimetres) by least squares over the samples of the
    /// last `window` µs (at least the two newest). Zero with fewer than two samples.
    func velocity(window: TimeSpan) -> (normalised: Point, millimetres: Point) {
        guard count >= 2 else { return (.zero, .zero) }
        let now = samples[newest].time
        let oldest = now - window
        var used = 0
        var index = newest
        var sumT = 0.0
        var sumX = Point.zero
        var sumXMM = Point.zero
        while used < count {
            let sample = samples[index]
            if used >= 2 && sample.time < oldest { break }
            let t = -(now - sample.time).seconds
            sumT += t
            sumX = sumX + sample.translation
            sumXMM = sumXMM + sample.translationMM
            used += 1
            index = (index + Self.capacity - 1) % Self.capacity
        }
        let n = Double(used)
        let meanT = sumT / n
        let meanX = sumX / n
        let meanXMM = sumXMM / n
        var stt = 0.0
        var stx = Point.zero
        var stxMM = Point.zero
        index = newest
        for _ in 0..<used {
            let sample = samples[index]
            let dt = -(now - sample.time).seconds - meanT
            stt += dt * dt
            stx = stx + (sample.translation - meanX) * dt
            stxMM = stxMM + (sample.translationMM - meanXMM) * dt
            index = (index + Self.capacity - 1) % Self.capacity
        }
        guard stt > 0 else { return (.zero, .zero) }
        return (stx / stt, stxMM / stt)
    }
}

/// drag (and the swipe it may end as): `began` when the centroid has moved more than the
/// minimum distance and the arena lets it win, `changed` per frame with movement, `ended`
/// at the last lift (then `swipe` if fast and far enough), `cancelled` on cancel.
/// The translation accumulates the centroid's movement of the fingers that stay down from
/// one frame to the next, so fingers joining or leaving never make it jump.
struct DragRecognizer {
    private enum State {
        case idle
        case possible
        case failed
        case dragging(id: UInt64)
    }

    private var state: State = .idle
    private var startLocation = Point.zero
    private var startMM = Point.zero
    private(set) var translation = Point.zero
    private(set) var translationMM = Point.zero
    private var velocity = VelocityTracker()

    mutating func touchDown(time: Timestamp, location: Point, locationMM: Point, reporter: Reporter) {
        switch state {
        case .idle:
            startLocation = location
            startMM = locationMM
            translation = .zero
            translationMM = .zero
            velocity.reset(time: time)
            velocity.add(time: time, translation: .zero, translationMM: .zero)
            state = .possible
            reporter.transition("drag", State.idle, "touch-down", state)
        case .possible, .failed, .dragging:
            break
        }
    }

    /// Adds one frame's centroid movement (a sample when it moved).
    mutating func moved(time: Timestamp, delta: Point, deltaMM: Point) {
        switch state {
        case .possible, .dragging:
            // Like Flutter's tracker, only movement is sampled; a rest shows as the gap
            // before the lift (see `values`).
            guard delta != .zero else { return }
            translation = translation + delta
            translationMM = translationMM + deltaMM
            velocity.add(time: time, translation: translation, translationMM: translationMM)
        case .idle, .failed:
            break
        }
    }

    /// Whether the translation exceeds the minimum distance while the drag is possible.
    func wantsToBegin(thresholds: Thresholds) -> Bool {
        switch state {
        case .possible: translationMM.length.exceeds(thresholds.dragMinimumDistanceMM)
        case .idle, .failed, .dragging: false
        }
    }

    /// The arena let the drag win.
    mutating func begin<S: GestureSink>(time: Timestamp, fingers: Int, thresholds: Thresholds, reporter: Reporter, sink: inout S) {
        switch state {
        case .possible:
            let id = reporter.newID(.drag, &sink)
            state = .dragging(id: id)
            emit(.began, id: id, time: time, fingers: fingers, lifting: false, thresholds: thresholds, reporter: reporter, sink: &sink)
            reporter.transition("drag", State.possible, "moved-beyond-minimum", state)
        case .idle, .failed, .dragging:
            break
        }
    }

    mutating func changed<S: GestureSink>(time: Timestamp, fingers: Int, thresholds: Thresholds, reporter: Reporter, sink: inout S) {
        switch state {
        case .dragging(let id):
            emit(.changed, id: id, time: time, fingers: fingers, lifting: false, thresholds: thresholds, reporter: reporter, sink: &sink)
        case .idle, .possible, .failed:
            break
        }
    }

    /// Lost: another recognizer (of this region or of another region of the touch) won.
    mutating func fail(_ reason: StaticString, reporter: Reporter) {
        switch state {
        case .possible:
            state = .failed
            reporter.transition("drag", State.possible, reason, state)
        case .idle, .failed, .dragging:
            break
        }
    }

    mutating func lastLift<S: GestureSink>(
        time: Timestamp, fingers: Int, thresholds: Thresholds, surface: PhysicalSize, reporter: Reporter, sink: inout S
    ) {
        let old = state
        switch state {
        case .dragging(let id):
            let values = emit(
                .ended, id: id, time: time, fingers: fingers, lifting: true, thresholds: thresholds, reporter: reporter, sink: &sink)
            swipe(
                values: values.drag, velocityMM: values.velocityMM, time: time, fingers: fingers, thresholds: thresholds, surface: surface,
                reporter: reporter, sink: &sink)
        case .idle, .possible, .failed:
            break
        }
        state = .idle
        reporter.transition("drag", old, "last-lift", state)
    }

    mutating func cancel<S: GestureSink>(time: Timestamp, fingers: Int, thresholds: Thresholds, reporter: Reporter, sink: inout S) {
        let old = state
        switch state {
        case .dragging(let id):
            emit(.cancelled, id: id, time: time, fingers: fingers, lifting: false, thresholds: thresholds, reporter: reporter, sink: &sink)
        case .idle, .possible, .failed:
            break
        }
        state = .failed
        reporter.transition("drag", old, "cancel", state)
    }

    mutating func reset() { state = .idle }

    /// The drag's values now; at lift, a finger that rested before lifting has velocity 0.
    func values(time: Timestamp, lifting: Bool, thresholds: Thresholds) -> (drag: DragValues, velocityMM: Point) {
        var (v, vMM) = velocity.velocity(window: thresholds.velocityWindow)
        if lifting && time - velocity.lastMotionTime > VelocityTracker.stillnessBeforeLift {
            v = .zero
            vMM = .zero
        }
        let predicted = translation + v * thresholds.projectionSeconds
        let drag = DragValues(
            startLocation: startLocation, translation: translation, velocity: v, predictedEndLocation: startLocation + predicted,
            predictedEndTranslation: predicted)
        return (drag, vMM)
    }

    @discardableResult
    private func emit<S: GestureSink>(
        _ phase: GesturePhase, id: UInt64, time: Timestamp, fingers: Int, lifting: Bool, thresholds: Thresholds, reporter: Reporter,
        sink: inout S
    ) -> (drag: DragValues, velocityMM: Point) {
        let values = values(time: time, lifting: lifting, thresholds: thresholds)
        reporter.emit(.drag(values.drag), phase, id: id, time: time, fingers: fingers, location: startLocation + translation, into: &sink)
        return values
    }

    /// swipe: a discrete `ended` right after the drag ended far and fast enough.
    private func swipe<S: GestureSink>(
        values: DragValues, velocityMM: Point, time: Timestamp, fingers: Int, thresholds: Thresholds, surface: PhysicalSize,
        reporter: Reporter, sink: inout S
    ) {
        guard translationMM.length.reaches(thresholds.swipeMinimumDistanceMM),
            velocityMM.length.reaches(thresholds.swipeMinimumVelocityMMPerSecond)
        else { return }
        let direction: SwipeDirection =
            abs(translationMM.x) >= abs(translationMM.y)
            ? (translationMM.x >= 0 ? .right : .left)
            : (translationMM.y >= 0 ? .down : .up)
        let edge = Self.edge(of: startLocation, surface: surface, margin: thresholds.edgeMarginMM)
        let id = reporter.newID(.swipe, &sink)
        reporter.emit(
            .swipe(direction: direction, edge: edge, drag: values), .ended, id: id, time: time, fingers: fingers,
            location: startLocation + translation, into: &sink)
    }

    /// The screen edge within `margin` mm of `location` (the nearest one in a corner).
    static func edge(of location: Point, surface: PhysicalSize, margin: Double) -> ScreenEdge? {
        var best: ScreenEdge?
        var bestDistance = margin
        for edge in ScreenEdge.allCases {
            let distance: Double =
                switch edge {
                case .left: location.x * surface.width
                case .right: (1 - location.x) * surface.width
                case .top: location.y * surface.height
                case .bottom: (1 - location.y) * surface.height
                }
            if !distance.exceeds(bestDistance) {
                best = edge
                bestDistance = distance
            }
        }
        return best
    }
}
