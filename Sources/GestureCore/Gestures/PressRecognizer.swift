/// press: `began` at the sequence's first touch-down, `ended` at its last lift whatever the
/// touch became, `cancelled` when the primary touch leaves the region or the sequence is
/// cancelled. One press per sequence; never for a touch that started unobserved.
struct PressRecognizer {
    private enum State {
        case idle
        case pressing(id: UInt64)
        /// This sequence's press is over (cancelled, or never began); waits for the last lift.
        case done
    }

    private var state: State = .idle

    var isPressing: Bool {
        switch state {
        case .pressing: true
        case .idle, .done: false
        }
    }

    mutating func touchDown<S: GestureSink>(time: UInt64, location: Point, fingers: Int, unobserved: Bool, reporter: Reporter, sink: inout S) {
        switch state {
        case .idle:
            if unobserved {
                state = .done
            } else {
                let id = reporter.newID(.press, &sink)
                state = .pressing(id: id)
                reporter.emit(.press, .began, id: id, time: time, fingers: fingers, location: location, into: &sink)
            }
            reporter.transition("press", State.idle, "touch-down", state)
        case .pressing, .done:
            break
        }
    }

    /// The primary touch left the region, or the sequence was cancelled.
    mutating func cancel<S: GestureSink>(time: UInt64, location: Point, fingers: Int, reporter: Reporter, sink: inout S) {
        switch state {
        case .pressing(let id):
            reporter.emit(.press, .cancelled, id: id, time: time, fingers: fingers, location: location, into: &sink)
            let old = state
            state = .done
            reporter.transition("press", old, "cancel", state)
        case .idle, .done:
            break
        }
    }

    mutating func lastLift<S: GestureSink>(time: UInt64, location: Point, fingers: Int, reporter: Reporter, sink: inout S) {
        let old = state
        switch state {
        case .pressing(let id):
            reporter.emit(.press, .ended, id: id, time: time, fingers: fingers, location: location, into: &sink)
        case .idle, .done:
            break
        }
        state = .idle
        reporter.transition("press", old, "last-lift", state)
    }

    /// Forget everything (the sequence's contacts are gone after a cancel).
    mutating func reset() { state = .idle }
}
