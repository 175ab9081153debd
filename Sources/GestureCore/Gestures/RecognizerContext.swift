import GestureProtocol

/// What a region's recognizers work with while the region handles one input: its
/// thresholds, its `Reporter` (how events are stamped and transitions logged) and the
/// engine's sink. One value passed to every recognizer call instead of three: the region
/// builds it around the sink it was given (moved in, so the sink's storage stays uniquely
/// referenced and appending to it never copies) and hands the sink back when it is done.
struct RecognizerContext<Sink: GestureSink> {
    let thresholds: Thresholds
    let reporter: Reporter
    var sink: Sink

    /// The kinds the current touch sequence reports in this region (`RegionRoles.reported`).
    var reported: GestureKindSet { reporter.reported }

    /// A fresh id for a gesture that will be reported; 0 (no id spent) when it is not.
    @inline(__always)
    mutating func newID(_ kind: GestureKind) -> UInt64 {
        reporter.newID(kind, &sink)
    }

    /// Emits an event of a kind this region reports (others are dropped).
    @inline(__always)
    mutating func emit(
        _ details: GestureDetails, _ phase: GesturePhase, id: UInt64, time: Timestamp, fingers: Int, location: Point,
        pressCancellation: PressCancellation? = nil
    ) {
        reporter.emit(
            details, phase, id: id, time: time, fingers: fingers, location: location, pressCancellation: pressCancellation, into: &sink)
    }

    /// Logs "region recognizer: old → input → new"; builds no string when nobody listens.
    @inline(__always)
    func transition<State>(_ recognizer: StaticString, _ old: State, _ input: StaticString, _ new: State) {
        reporter.transition(recognizer, old, input, new)
    }
}
