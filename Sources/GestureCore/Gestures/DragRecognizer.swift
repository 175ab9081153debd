import GestureProtocol

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

    /// The translation in both spaces, sampled together for the velocity.
    struct Translation: TrackedQuantity {
        var normalised: Point
        var surface: SurfacePoint

        static var zero: Translation { Translation(normalised: .zero, surface: .zero) }
        static func + (a: Translation, b: Translation) -> Translation {
            Translation(normalised: a.normalised + b.normalised, surface: a.surface + b.surface)
        }
        static func - (a: Translation, b: Translation) -> Translation {
            Translation(normalised: a.normalised - b.normalised, surface: a.surface - b.surface)
        }
        static func * (a: Translation, factor: Double) -> Translation {
            Translation(normalised: a.normalised * factor, surface: a.surface * factor)
        }
        static func / (a: Translation, divisor: Double) -> Translation {
            Translation(normalised: a.normalised / divisor, surface: a.surface / divisor)
        }
    }

    private var state: State = .idle
    private var startLocation = Point.zero
    /// The screen edge the drag starts from (within the edge margin), reported on every
    /// event of the drag and on its swipe: an edge pan.
    private var edge: ScreenEdge?
    private(set) var translation = Point.zero
    private(set) var surfaceTranslation = SurfacePoint.zero
    private var velocity = VelocityTracker<Translation>()

    mutating func touchDown(
        time: Timestamp, location: Point, surface: PhysicalSize, in context: RecognizerContext
    ) {
        switch state {
        case .idle:
            startLocation = location
            edge = Self.edge(of: location, surface: surface, margin: context.thresholds.edgeMargin)
            translation = .zero
            surfaceTranslation = .zero
            velocity.reset(time: time)
            velocity.add(time: time, value: .zero)
            state = .possible
            context.transition("drag", State.idle, "touch-down", state)
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
            velocity.add(time: time, value: Translation(normalised: translation, surface: surfaceTranslation))
        case .idle, .failed:
            break
        }
    }

    /// The drag has begun (and not ended): the touch moves as a whole.
    var hasBegun: Bool {
        switch state {
        case .dragging: true
        case .idle, .possible, .failed: false
        }
    }

    /// Whether the translation exceeds the minimum distance while the drag is possible.
    private func wantsToBegin(in context: RecognizerContext) -> Bool {
        switch state {
        case .possible: surfaceTranslation.length.exceeds(context.thresholds.dragMinimumDistance)
        case .idle, .failed, .dragging: false
        }
    }

    /// The touch moves as a whole: the drag has begun, or moved far enough to claim it.
    /// Fingers that move together are a drag: pinch and rotate no longer begin.
    func takesTouch(in context: RecognizerContext) -> Bool {
        hasBegun || wantsToBegin(in: context)
    }

    /// After the frame's movement was added: beyond the minimum distance, the drag claims
    /// the touch (and, told it won, begins).
    func judge(in context: RecognizerContext) -> ArenaRequest {
        wantsToBegin(in: context) ? .claim("moved-beyond-minimum") : .none
    }

    /// The arena let the drag win.
    mutating func begin<S: GestureSink>(time: Timestamp, fingers: Int, in context: RecognizerContext, into sink: inout S) {
        switch state {
        case .possible:
            let id = context.newID(.drag, &sink)
            state = .dragging(id: id)
            emit(.began, id: id, time: time, fingers: fingers, lifting: false, in: context, into: &sink)
            context.transition("drag", State.possible, "moved-beyond-minimum", state)
        case .idle, .failed, .dragging:
            break
        }
    }

    mutating func changed<S: GestureSink>(time: Timestamp, fingers: Int, in context: RecognizerContext, into sink: inout S) {
        switch state {
        case .dragging(let id):
            emit(.changed, id: id, time: time, fingers: fingers, lifting: false, in: context, into: &sink)
        case .idle, .possible, .failed:
            break
        }
    }

    /// Lost: another recognizer (of this region or of another region of the touch) won.
    mutating func fail(_ reason: StaticString, in context: RecognizerContext) {
        switch state {
        case .possible:
            state = .failed
            context.transition("drag", State.possible, reason, state)
        case .idle, .failed, .dragging:
            break
        }
    }

    mutating func lastLift<S: GestureSink>(time: Timestamp, fingers: Int, in context: RecognizerContext, into sink: inout S) {
        let old = state
        switch state {
        case .dragging(let id):
            let values = emit(
                .ended, id: id, time: time, fingers: fingers, lifting: true, in: context, into: &sink)
            swipe(
                values: values.drag, surfaceVelocity: values.surfaceVelocity, time: time, fingers: fingers, in: context, into: &sink)
        case .idle, .possible, .failed:
            break
        }
        state = .idle
        context.transition("drag", old, "last-lift", state)
    }

    mutating func cancel<S: GestureSink>(time: Timestamp, fingers: Int, in context: RecognizerContext, into sink: inout S) {
        let old = state
        switch state {
        case .dragging(let id):
            emit(.cancelled, id: id, time: time, fingers: fingers, lifting: false, in: context, into: &sink)
        case .idle, .possible, .failed:
            break
        }
        state = .failed
        context.transition("drag", old, "cancel", state)
    }

    mutating func reset() { state = .idle }

    /// The drag's values now; at lift, a finger that rested before lifting has velocity 0.
    func values(
        time: Timestamp, lifting: Bool, in context: RecognizerContext
    ) -> (drag: DragValues, surfaceVelocity: SurfaceVelocity) {
        let thresholds = context.thresholds
        let rate =
            lifting
            ? velocity.velocity(window: thresholds.velocityWindow, liftingAt: time) : velocity.velocity(window: thresholds.velocityWindow)
        let v = rate.normalised
        let surfaceV = SurfaceVelocity(perSecond: rate.surface)
        let predicted = translation + v * thresholds.projectionSeconds
        let drag = DragValues(
            startLocation: startLocation, edge: edge, translation: translation, velocity: v,
            predictedEndLocation: startLocation + predicted,
            predictedEndTranslation: predicted)
        return (drag, surfaceV)
    }

    @discardableResult
    private func emit<S: GestureSink>(
        _ phase: GesturePhase, id: UInt64, time: Timestamp, fingers: Int, lifting: Bool, in context: RecognizerContext, into sink: inout S
    ) -> (drag: DragValues, surfaceVelocity: SurfaceVelocity) {
        let values = values(time: time, lifting: lifting, in: context)
        context.emit(.drag(values.drag), phase, id: id, time: time, fingers: fingers, location: startLocation + translation, into: &sink)
        return values
    }

    /// swipe: a discrete `ended` right after the drag ended far and fast enough.
    private func swipe<S: GestureSink>(
        values: DragValues, surfaceVelocity: SurfaceVelocity, time: Timestamp, fingers: Int, in context: RecognizerContext,
        into sink: inout S
    ) {
        guard surfaceTranslation.length.reaches(context.thresholds.swipeMinimumDistance),
            surfaceVelocity.speed.reaches(context.thresholds.swipeMinimumVelocity)
        else { return }
        let direction: SwipeDirection =
            surfaceTranslation.x.magnitude >= surfaceTranslation.y.magnitude
            ? (surfaceTranslation.x >= .zero ? .right : .left)
            : (surfaceTranslation.y >= .zero ? .down : .up)
        let id = context.newID(.swipe, &sink)
        context.emit(
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
