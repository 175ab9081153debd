import GestureProtocol

/// pinch and rotate (one type, two instances): track two or more fingers from the moment two
/// stay down from one frame to the next; `began` once the scale changed by the minimum
/// (and the spread by the minimum distance: pinch) or the fingers turned by the minimum
/// angle (and along the minimum arc: rotate), `changed` per frame, `ended` when fewer than two fingers remain,
/// `cancelled` on cancel. The value is measured from where the gesture began: pinch `scale`
/// = spread now / spread at `began` (1 at `began`); rotate `degrees` accumulated frame by
/// frame since `began` (0 at `began`; clockwise positive on screen, no ±180 wrap). So a view
/// bound to it never jumps by the threshold. `velocity`: least squares over the samples of
/// the velocity window, as the drag's; 0 at `began` and `cancelled`.
struct TransformRecognizer {
    /// Which of the two this instance is.
    enum Kind {
        case pinch, rotate
    }

    private enum State {
        case idle
        /// ≥ 2 fingers down, threshold not reached. `value`: scale or degrees since tracking
        /// began; `distance`: how far the fingers went doing it, in millimetres (the
        /// spread's change; the arc they turned along).
        case tracking(value: Double, distance: Double)
        /// `value` as in `tracking`; `origin`: its value at `began`.
        case active(id: UInt64, value: Double, origin: Double)
    }

    let kind: Kind
    private var state: State = .idle
    /// Samples of the value since tracking began (on change only, like the drag's).
    private var velocity = VelocityTracker<Double>()

    init(_ kind: Kind) { self.kind = kind }

    private var gestureKind: GestureKind {
        switch kind {
        case .pinch: .pinch
        case .rotate: .rotate
        }
    }

    private var name: StaticString {
        switch kind {
        case .pinch: "pinch"
        case .rotate: "rotate"
        }
    }

    /// The value before any change: a scale of 1, 0 degrees.
    private var identity: Double {
        switch kind {
        case .pinch: 1
        case .rotate: 0
        }
    }

    /// Not tracking two fingers (nothing to end when fewer than two remain).
    var isIdle: Bool {
        switch state {
        case .idle: true
        case .tracking, .active: false
        }
    }

    /// One frame with at least two fingers staying down. `spread` is their mean distance
    /// from their centroid; `spreadRatio` and `spreadChange` compare it with the previous
    /// frame; `turn` is their mean turn; `previousTime` is the previous frame's, where the
    /// frame's change started from. Returns true when this frame began the gesture.
    /// `touchTaken`: a long press or the drag holds the touch (it began, or the drag begins
    /// in this frame): then the gesture does not begin, whatever its threshold says.
    mutating func moved<S: GestureSink>(
        time: Timestamp, since previousTime: Timestamp, spread: Length, spreadRatio: Double, spreadChange: Length, turn: Angle,
        touchTaken: Bool, fingers: Int,
        location: Point, in context: RecognizerContext, into sink: inout S
    ) -> Bool {
        let changed: Bool
        let distance: Double
        switch kind {
        case .pinch:
            changed = spreadRatio != 1
            distance = spreadChange.millimetres
        case .rotate:
            changed = turn != .zero
            distance = turn.degrees * (Trigonometry.pi / 180) * spread.millimetres
        }
        switch state {
        case .idle:
            // The value before this frame's change is the identity, at the previous frame's
            // time (not this one's: two samples at one time would be an infinite slope).
            velocity.reset(time: previousTime)
            velocity.add(time: previousTime, value: identity)
            state = .tracking(value: identity, distance: 0)
            context.transition(name, State.idle, "two-fingers", state)
            return moved(
                time: time, since: previousTime, spread: spread, spreadRatio: spreadRatio, spreadChange: spreadChange, turn: turn,
                touchTaken: touchTaken,
                fingers: fingers, location: location, in: context, into: &sink)
        case .tracking(let value, let travelled):
            let newValue = step(value, spreadRatio: spreadRatio, turn: turn)
            let newDistance = travelled + distance
            if changed { velocity.add(time: time, value: newValue) }
            if !touchTaken && reachesThreshold(newValue, distance: newDistance, context.thresholds) {
                let id = context.newID(gestureKind, &sink)
                let old = state
                state = .active(id: id, value: newValue, origin: newValue)
                emit(
                    .began, id: id, value: newValue, origin: newValue, time: time, fingers: fingers, location: location,
                    in: context, into: &sink)
                context.transition(name, old, "threshold", state)
                return true
            }
            state = .tracking(value: newValue, distance: newDistance)
            return false
        case .active(let id, let value, let origin):
            let newValue = step(value, spreadRatio: spreadRatio, turn: turn)
            state = .active(id: id, value: newValue, origin: origin)
            if changed {
                velocity.add(time: time, value: newValue)
                emit(
                    .changed, id: id, value: newValue, origin: origin, time: time, fingers: fingers, location: location,
                    in: context, into: &sink)
            }
            return false
        }
    }

    /// Fewer than two fingers remain (or none: the sequence ended).
    mutating func fingersBelowTwo<S: GestureSink>(
        time: Timestamp, fingers: Int, location: Point, in context: RecognizerContext, into sink: inout S
    ) {
        finish(
            .ended, "below-two-fingers", time: time, fingers: fingers, location: location, in: context, into: &sink)
    }

    mutating func cancel<S: GestureSink>(
        time: Timestamp, fingers: Int, location: Point, in context: RecognizerContext, into sink: inout S
    ) {
        finish(
            .cancelled, "cancel", time: time, fingers: fingers, location: location, in: context, into: &sink)
    }

    mutating func reset() { state = .idle }

    /// `value` after one frame's spread ratio (pinch) or turn (rotate).
    private func step(_ value: Double, spreadRatio: Double, turn: Angle) -> Double {
        switch kind {
        case .pinch: value * spreadRatio
        case .rotate: value + turn.degrees
        }
    }

    /// Pinch: the scale changed by `pinch.minimumScaleChange` and the spread by
    /// `pinch.minimumSpreadChange`; rotate: the fingers turned by `rotate.minimumAngle`
    /// along `rotate.minimumArc`. The distances keep the jitter of fingers close together,
    /// a large share of their small spread, from pinching or turning.
    private func reachesThreshold(_ value: Double, distance: Double, _ thresholds: Thresholds) -> Bool {
        switch kind {
        case .pinch:
            abs(value - 1).reaches(thresholds.pinchMinimumScaleChange)
                && Length.millimetres(distance).magnitude.reaches(thresholds.pinchMinimumSpreadChange)
        case .rotate:
            Angle.degrees(value).magnitude.reaches(thresholds.rotateMinimumAngle)
                && Length.millimetres(distance).magnitude.reaches(thresholds.rotateMinimumArc)
        }
    }

    private mutating func finish<S: GestureSink>(
        _ phase: GesturePhase, _ input: StaticString, time: Timestamp, fingers: Int, location: Point, in context: RecognizerContext,
        into sink: inout S
    ) {
        let old = state
        switch state {
        case .idle:
            return
        case .tracking:
            break
        case .active(let id, let value, let origin):
            emit(
                phase, id: id, value: value, origin: origin, time: time, fingers: fingers, location: location,
                in: context, into: &sink)
        }
        state = .idle
        context.transition(name, old, input, state)
    }

    /// Reports the value relative to `origin`, with its velocity: 0 at `began` (the value
    /// starts there: nothing measured from it yet) and at `cancelled` (nothing to finish
    /// with momentum); at `ended`, 0 after the fingers rested, as the drag's.
    private func emit<S: GestureSink>(
        _ phase: GesturePhase, id: UInt64, value: Double, origin: Double, time: Timestamp, fingers: Int, location: Point,
        in context: RecognizerContext, into sink: inout S
    ) {
        guard context.reported.contains(gestureKind) else { return }
        let rate: Double =
            switch phase {
            case .began, .cancelled: 0
            case .changed: velocity.velocity(window: context.thresholds.velocityWindow)
            case .ended: velocity.velocity(window: context.thresholds.velocityWindow, liftingAt: time)
            }
        let details: GestureDetails =
            switch kind {
            case .pinch: .pinch(scale: value / origin, velocity: rate / origin)
            case .rotate: .rotate(degrees: value - origin, velocity: rate)
            }
        context.emit(details, phase, id: id, time: time, fingers: fingers, location: location, into: &sink)
    }
}
