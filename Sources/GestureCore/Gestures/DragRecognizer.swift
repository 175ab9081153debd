import GestureProtocol

/// Least-squares velocity over the recent samples of a translation, in a fixed ring (no
/// allocation after init).
struct VelocityTracker {
    struct Sample {
        var time: Timestamp
        var translation: Point
        var surfaceTranslation: SurfacePoint
    }

    /// Samples kept; at 1 kHz this still covers 128 ms. A power of two (`previous`).
    static let capacity = 128
    /// A finger that rested this long before lifting throws nothing (Flutter's rule).
    static let stillnessBeforeLift = TimeSpan.microseconds(40_000)

    private var samples: [Sample]
    private var newest = -1
    private var count = 0
    private(set) var lastMotionTime: Timestamp = .zero

    init() {
        samples = Array(repeating: Sample(time: .zero, translation: .zero, surfaceTranslation: .zero), count: Self.capacity)
    }

    mutating func reset(time: Timestamp) {
        newest = -1
        count = 0
        lastMotionTime = time
    }

    mutating func add(time: Timestamp, translation: Point, surfaceTranslation: SurfacePoint) {
        newest = (newest + 1) % Self.capacity
        samples[newest] = Sample(time: time, translation: translation, surfaceTranslation: surfaceTranslation)
        count = min(count + 1, Self.capacity)
        lastMotionTime = time
    }

    /// Velocity per second (normalised, and on the surface) by least squares over the samples
    /// of the last `window` (at least the two newest). Zero with fewer than two samples.
    /// Two passes (means, then deviations) over the ring, read through one buffer pointer
    /// (no bounds check per sample; the ring index is always below `capacity`); each
    /// sample's time relative to the newest is computed once, in the first pass, and kept on
    /// the stack for the second (the same doubles: no division per sample the second time).
    func velocity(window: TimeSpan) -> (normalised: Point, surface: SurfaceVelocity) {
        guard count >= 2 else { return (.zero, .zero) }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.capacity) { times in
            velocity(window: window, times: times)
        }
    }

    /// `velocity(window:)` with room for the relative time of every sample.
    @inline(__always)
    private func velocity(window: TimeSpan, times: UnsafeMutableBufferPointer<Double>) -> (normalised: Point, surface: SurfaceVelocity) {
        samples.withUnsafeBufferPointer { samples in
            let now = samples[newest].time
            let oldest = now - window
            var used = 0
            var index = newest
            var sumT = 0.0
            var sumX = Point.zero
            var surfaceSumX = SurfacePoint.zero
            while used < count {
                let sample = samples[index]
                if used >= 2 && sample.time < oldest { break }
                let t = -(now - sample.time).seconds
                times[used] = t
                sumT += t
                sumX = sumX + sample.translation
                surfaceSumX = surfaceSumX + sample.surfaceTranslation
                used &+= 1
                index = Self.previous(index)
            }
            let n = Double(used)
            let meanT = sumT / n
            let meanX = sumX / n
            let surfaceMeanX = surfaceSumX / n
            var stt = 0.0
            var stx = Point.zero
            var surfaceSTX = SurfacePoint.zero
            index = newest
            for step in 0..<used {
                let sample = samples[index]
                let dt = times[step] - meanT
                stt += dt * dt
                stx = stx + (sample.translation - meanX) * dt
                surfaceSTX = surfaceSTX + (sample.surfaceTranslation - surfaceMeanX) * dt
                index = Self.previous(index)
            }
            guard stt > 0 else { return (.zero, .zero) }
            return (stx / stt, SurfaceVelocity(perSecond: surfaceSTX / stt))
        }
    }

    /// The ring index before `index` (0…capacity − 1): a mask, `capacity` being a power of two.
    @inline(__always)
    private static func previous(_ index: Int) -> Int {
        (index &+ capacity &- 1) & (capacity &- 1)
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
    private(set) var translation = Point.zero
    private(set) var surfaceTranslation = SurfacePoint.zero
    private var velocity = VelocityTracker()

    mutating func touchDown(time: Timestamp, location: Point, reporter: Reporter) {
        switch state {
        case .idle:
            startLocation = location
            translation = .zero
            surfaceTranslation = .zero
            velocity.reset(time: time)
            velocity.add(time: time, translation: .zero, surfaceTranslation: .zero)
            state = .possible
            reporter.transition("drag", State.idle, "touch-down", state)
        case .possible, .failed, .dragging:
            break
        }
    }

    /// Adds one frame's centroid movement (a sample when it moved).
    mutating func moved(time: Timestamp, delta: Point, surfaceDelta: SurfacePoint) {
        switch state {
        case .possible, .dragging:
            // Like Flutter's tracker, only movement is sampled; a rest shows as the gap
            // before the lift (see `values`).
            guard delta != .zero else { return }
            translation = translation + delta
            surfaceTranslation = surfaceTranslation + surfaceDelta
            velocity.add(time: time, translation: translation, surfaceTranslation: surfaceTranslation)
        case .idle, .failed:
            break
        }
    }

    /// Whether the translation exceeds the minimum distance while the drag is possible.
    func wantsToBegin(thresholds: Thresholds) -> Bool {
        switch state {
        case .possible: surfaceTranslation.length.exceeds(thresholds.dragMinimumDistance)
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
                values: values.drag, surfaceVelocity: values.surfaceVelocity, time: time, fingers: fingers, thresholds: thresholds,
                surface: surface,
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
    func values(time: Timestamp, lifting: Bool, thresholds: Thresholds) -> (drag: DragValues, surfaceVelocity: SurfaceVelocity) {
        var (v, surfaceV) = velocity.velocity(window: thresholds.velocityWindow)
        if lifting && time - velocity.lastMotionTime > VelocityTracker.stillnessBeforeLift {
            v = .zero
            surfaceV = .zero
        }
        let predicted = translation + v * thresholds.projectionSeconds
        let drag = DragValues(
            startLocation: startLocation, translation: translation, velocity: v, predictedEndLocation: startLocation + predicted,
            predictedEndTranslation: predicted)
        return (drag, surfaceV)
    }

    @discardableResult
    private func emit<S: GestureSink>(
        _ phase: GesturePhase, id: UInt64, time: Timestamp, fingers: Int, lifting: Bool, thresholds: Thresholds, reporter: Reporter,
        sink: inout S
    ) -> (drag: DragValues, surfaceVelocity: SurfaceVelocity) {
        let values = values(time: time, lifting: lifting, thresholds: thresholds)
        reporter.emit(.drag(values.drag), phase, id: id, time: time, fingers: fingers, location: startLocation + translation, into: &sink)
        return values
    }

    /// swipe: a discrete `ended` right after the drag ended far and fast enough.
    private func swipe<S: GestureSink>(
        values: DragValues, surfaceVelocity: SurfaceVelocity, time: Timestamp, fingers: Int, thresholds: Thresholds, surface: PhysicalSize,
        reporter: Reporter, sink: inout S
    ) {
        guard surfaceTranslation.length.reaches(thresholds.swipeMinimumDistance),
            surfaceVelocity.speed.reaches(thresholds.swipeMinimumVelocity)
        else { return }
        let direction: SwipeDirection =
            surfaceTranslation.x.magnitude >= surfaceTranslation.y.magnitude
            ? (surfaceTranslation.x >= .zero ? .right : .left)
            : (surfaceTranslation.y >= .zero ? .down : .up)
        let edge = Self.edge(of: startLocation, surface: surface, margin: thresholds.edgeMargin)
        let id = reporter.newID(.swipe, &sink)
        reporter.emit(
            .swipe(direction: direction, edge: edge, drag: values), .ended, id: id, time: time, fingers: fingers,
            location: startLocation + translation, into: &sink)
    }

    /// The screen edge within `margin` of `location` (the nearest one in a corner).
    static func edge(of location: Point, surface: PhysicalSize, margin: Length) -> ScreenEdge? {
        var best: ScreenEdge?
        var bestDistance = margin
        for edge in ScreenEdge.allCases {
            let distance: Length =
                switch edge {
                case .left: .millimetres(location.x * surface.width)
                case .right: .millimetres((1 - location.x) * surface.width)
                case .top: .millimetres(location.y * surface.height)
                case .bottom: .millimetres((1 - location.y) * surface.height)
                }
            if !distance.exceeds(bestDistance) {
                best = edge
                bestDistance = distance
            }
        }
        return best
    }
}
