import GestureProtocol

/// press: `began` at the sequence's first touch-down, `ended` at its last lift whatever the
/// touch became, `cancelled` when every finger has left the region, when a gesture of an
/// enclosing region wins the touch, or when the sequence is cancelled. One press per
/// sequence, and one more for a finger that joins it when its press is over or it had none
/// (`RegionRecognizers`); never for a sequence that started unobserved.
///
/// The end of a press is held until the engine has run every region for the step (`flush`),
/// so that it comes after every other gesture of the touch, in every region: the press
/// brackets everything, on the last lift and on every cancellation path alike.
struct PressRecognizer {
    private enum State {
        case idle
        case pressing(id: UInt64)
        /// Over (`phase` ended or cancelled) and reported at the next `flush`. Afterwards
        /// `idle` when the sequence is over too, else `done`.
        case closing(
            id: UInt64, phase: GesturePhase, cancellation: PressCancellation?, time: Timestamp, location: Point, fingers: Int,
            sequenceOver: Bool)
        /// This sequence's press is over; waits for the last lift.
        case done
    }

    private var state: State = .idle {
        didSet {
            switch state {
            case .closing: isClosing = true
            case .idle, .pressing, .done: isClosing = false
            }
        }
    }

    /// Over and waiting for `flush` (kept as a flag: the engine asks every step).
    private(set) var isClosing = false

    var isPressing: Bool {
        switch state {
        case .pressing: true
        case .idle, .closing, .done: false
        }
    }

    mutating func touchDown<S: GestureSink>(
        time: Timestamp, location: Point, fingers: Int, in context: RecognizerContext, into sink: inout S
    ) {
        switch state {
        case .idle, .done:
            let old = state
            let id = context.newID(.press, &sink)
            state = .pressing(id: id)
            context.emit(.press, .began, id: id, time: time, fingers: fingers, location: location, into: &sink)
            context.transition("press", old, "touch-down", state)
        case .pressing, .closing:
            break
        }
    }

    /// Every finger left the region, an enclosing region's gesture won the touch, or
    /// the sequence was cancelled.
    mutating func cancel(
        time: Timestamp, location: Point, fingers: Int, _ reason: StaticString, _ cancellation: PressCancellation,
        in context: RecognizerContext
    ) {
        switch state {
        case .pressing(let id):
            let old = state
            state = .closing(
                id: id, phase: .cancelled, cancellation: cancellation, time: time, location: location, fingers: fingers, sequenceOver: false
            )
            context.transition("press", old, reason, state)
        case .idle, .closing, .done:
            break
        }
    }

    mutating func lastLift(time: Timestamp, location: Point, fingers: Int, in context: RecognizerContext) {
        let old = state
        switch state {
        case .pressing(let id):
            state = .closing(id: id, phase: .ended, cancellation: nil, time: time, location: location, fingers: fingers, sequenceOver: true)
        case .closing(let id, let phase, let cancellation, let time, let location, let fingers, _):
            state = .closing(
                id: id, phase: phase, cancellation: cancellation, time: time, location: location, fingers: fingers, sequenceOver: true)
        case .idle, .done:
            state = .idle
        }
        context.transition("press", old, "last-lift", state)
    }

    /// Reports a press that ended or was cancelled in this step (after every other gesture).
    mutating func flush<S: GestureSink>(in context: RecognizerContext, into sink: inout S) {
        switch state {
        case .closing(let id, let phase, let cancellation, let time, let location, let fingers, let sequenceOver):
            context.emit(
                .press, phase, id: id, time: time, fingers: fingers, location: location, pressCancellation: cancellation, into: &sink)
            state = sequenceOver ? .idle : .done
        case .idle, .pressing, .done:
            break
        }
    }

    /// Forget the sequence (its contacts are gone after a cancel). A press still to be
    /// reported is kept for the next `flush`.
    mutating func reset() {
        switch state {
        case .closing(let id, let phase, let cancellation, let time, let location, let fingers, _):
            state = .closing(
                id: id, phase: phase, cancellation: cancellation, time: time, location: location, fingers: fingers, sequenceOver: true)
        case .idle, .pressing, .done:
            state = .idle
        }
    }
}
