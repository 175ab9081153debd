import GestureProtocol

/// What a region's recognizers are told with every input besides the sink: the region's
/// thresholds and its `Reporter` (how events are stamped and transitions logged). One value
/// instead of two parameters threaded through every call. The engine's sink stays a
/// parameter of its own: a context generic over the sink would be a generic type, whose
/// metadata the engine, compiled once for any sink, would look up at run time on every
/// call (up to 57 % more instructions per steady frame).
struct RecognizerContext {
    let thresholds: Thresholds
    var reporter: Reporter

    /// The kinds the current touch sequence reports in this region (`RegionRoles.reported`).
    var reported: GestureKindSet { reporter.reported }

    /// A fresh id for a gesture that will be reported; 0 (no id spent) when it is not.
    @inline(__always)
    func newID<S: GestureSink>(_ kind: GestureKind, _ sink: inout S) -> UInt64 {
        reporter.newID(kind, &sink)
    }

    /// Emits an event of a kind this region reports (others are dropped).
    @inline(__always)
    func emit<S: GestureSink>(
        _ details: GestureDetails, _ phase: GesturePhase, id: UInt64, time: Timestamp, fingers: Int, location: Point,
        pressCancellation: PressCancellation? = nil, into sink: inout S
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
