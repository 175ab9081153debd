import GestureProtocol

/// long-press: waits from touch-down for the minimum duration while no finger moves beyond
/// the maximum distance; at that deadline (a timer, stamped with the deadline) it claims the
/// arena and, told it won, reports `began`; then `changed` on movement, `ended` on the last
/// lift, `cancelled` on cancel. Its timer also ends the region's tap (held too long) when
/// the region runs a tap but no long press of its own.
struct LongPressRecognizer {
    private enum State {
        case idle
        case waiting(deadline: Timestamp)
        case failed
        case pressing(id: UInt64)
    }

    private var state: State = .idle

    /// The timer this recognizer needs, if any.
    var deadline: Timestamp? {
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

    mutating func touchDown(time: Timestamp, duration: TimeSpan, reporter: Reporter) {
        switch state {
        case .idle:
            state = .waiting(deadline: time + (duration))
            reporter.transition("long-press", State.idle, "touch-down", state)
        case .waiting, .failed, .pressing:
            break
        }
    }

    /// Lost: moved too far, pushed out of the arena (by a gesture of this region or of
    /// another region of the touch), an unobserved finger joined, the touch left the region,
    /// a pinch/rotate began, or the deadline passed without a claim. No effect once pressing.
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

    /// Won the arena at its deadline: `began`, stamped with the deadline.
    mutating func begin<S: GestureSink>(time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        switch state {
        case .waiting:
            let old = state
            let id = reporter.newID(.longPress, &sink)
            state = .pressing(id: id)
            reporter.emit(.longPress, .began, id: id, time: time, fingers: fingers, location: location, into: &sink)
            reporter.transition("long-press", old, "deadline-won", state)
        case .idle, .failed, .pressing:
            break
        }
    }

    mutating func moved<S: GestureSink>(time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        switch state {
        case .pressing(let id):
            reporter.emit(.longPress, .changed, id: id, time: time, fingers: fingers, location: location, into: &sink)
        case .idle, .waiting, .failed:
            break
        }
    }

    mutating func lastLift<S: GestureSink>(time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
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

    mutating func cancel<S: GestureSink>(time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
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
