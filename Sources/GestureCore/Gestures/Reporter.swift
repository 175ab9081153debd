import GestureProtocol

/// Emits a region's events and logs its recognizers' transitions. Holds only stored values
/// (the region name is a retained String), so copying it per call costs nothing.
struct Reporter {
    let region: String?
    /// The region's rectangle (nil for the top level), for region-local coordinates.
    let rect: Rect?
    /// What the current touch sequence reports here: the kinds this region owns or runs
    /// simultaneously for it, among those it enables (`RegionRoles`).
    var reported: GestureKindSet
    /// The touch sequence's first contact, stamped on every event (`GestureEvent.touch`).
    var touch: UInt32 = 0
    var log: ((String) -> Void)?

    /// A fresh id for a gesture that will be reported; 0 (no id spent) when it is not.
    func newID<S: GestureSink>(_ kind: GestureKind, _ sink: inout S) -> UInt64 {
        reported.contains(kind) ? sink.nextGestureID() : 0
    }

    @inline(__always)
    func emit<S: GestureSink>(
        _ details: GestureDetails, _ phase: GesturePhase, id: UInt64, time: Timestamp,
        fingers: Int, location: Point, pressCancellation: PressCancellation? = nil, into sink: inout S
    ) {
        guard reported.contains(details.kind) else { return }
        sink.emit(
            GestureEvent(
                details, phase: phase, id: id, time: time, region: region, fingers: fingers, location: location,
                regionRect: rect, touch: touch, pressCancellation: pressCancellation))
    }

    /// Logs "region recognizer: old → input → new"; builds no string when nobody listens.
    @inline(__always)
    func transition<State>(_ recognizer: StaticString, _ old: State, _ input: StaticString, _ new: State) {
        guard let log else { return }
        log("\(region ?? "-") \(recognizer): \(old) → \(input) → \(new)")
    }
}
