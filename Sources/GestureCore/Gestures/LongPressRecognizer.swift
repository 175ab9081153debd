/// long-press: waits from touch-down for the minimum duration while no finger moves beyond
/// the maximum distance; at that deadline (a timer, stamped with the deadline) it claims the
/// arena and reports `began`; then `changed` on movement, `ended` on the last lift,
/// `cancelled` on cancel.
struct LongPressRecognizer {
    private enum State {
        case idle
        case waiting(deadline: UInt64)
        case failed
        case pressing(id: UInt64)
    }

    private var state: State = .idle

    /// The timer this recognizer needs, if any.
    var deadline: UInt64? {
        switch state {
        case .waiting(let deadline): deadline
        case .idle, .failed, .pressing: nil
        }
    }

    var hasBegun: Bool {
        switch state {
        case .pressing: true
        case .idle, .waiting, .failed: false
        }
    }

    mutating func touchDown(time: UInt64, unobserved: Bool, duration: UInt64, reporter: Reporter) {
        switch state {
        case .idle:
            state = unobserved ? .failed : .waiting(deadline: time.saturatingAdd(duration))
            reporter.transition("long-press", State.idle, "touch-down", state)
        case .waiting, .failed, .pressing:
            break
        }
    }

    /// Moved too far, lifted early, pushed out of the arena, an unobserved finger joined,
    /// the touch left the region, or a pinch/rotate began. No effect once pressing.
    mutating func fail(_ reason: StaticString, reporter: Reporter) {
        switch state {
        case .waiting:
            let old = state
            state = .failed
            reporter.transition("long-press", old, reason, state)
        case .idle, .failed, .pressing:
            break
        }
    }

    /// The deadline passed with the finger down. `wins` says whether it claimed the arena
    /// (it does not claim when long press is disabled).
    mutating func deadlineReached<S: GestureSink>(time: UInt64, wins: Bool, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        switch state {
        case .waiting:
            let old = state
            if wins {
                let id = reporter.newID(.longPress, &sink)
                state = .pressing(id: id)
                reporter.emit(.longPress, .began, id: id, time: time, fingers: fingers, location: location, into: &sink)
            } else {
                state = .failed
            }
            reporter.transition("long-press", old, "deadline", state)
        case .idle, .failed, .pressing:
            break
        }
    }

    mutating func moved<S: GestureSink>(time: UInt64, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        switch state {
        case .pressing(let id):
            reporter.emit(.longPress, .changed, id: id, time: time, fingers: fingers, location: location, into: &sink)
        case .idle, .waiting, .failed:
            break
        }
    }

    mutating func lastLift<S: GestureSink>(time: UInt64, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        let old = state
        switch state {
        case .pressing(let id):
            reporter.emit(.longPress, .ended, id: id, time: time, fingers: fingers, location: location, into: &sink)
        case .idle, .waiting, .failed:
            break
        }
        state = .idle
        reporter.transition("long-press", old, "last-lift", state)
    }

    mutating func cancel<S: GestureSink>(time: UInt64, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        let old = state
        switch state {
        case .pressing(let id):
            reporter.emit(.longPress, .cancelled, id: id, time: time, fingers: fingers, location: location, into: &sink)
        case .idle, .waiting, .failed:
            break
        }
        state = .failed
        reporter.transition("long-press", old, "cancel", state)
    }

    mutating func reset() { state = .idle }
}
