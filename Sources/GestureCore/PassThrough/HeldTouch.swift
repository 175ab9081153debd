import GestureProtocol

/// A touch `app-long-press = false` keeps off the clone until its first movement beyond
/// the tap's slop (a drag: revealed), its lift (a tap: revealed) or the end of the
/// long-press duration (it rested: gestured's alone until it lifts). Only frame times are
/// needed: a touch still within the slop at the first frame past the duration rested that
/// long, whatever it does next.
public struct HeldTouch: Sendable, Hashable {
    /// The touch as it was at touch-down: what the clone shows first when it is revealed.
    enum Origin: Sendable, Hashable {
        case slot(SlotState)
        case contact(ReportedContact)
        /// A single-touch device's axes (`ABS_X`, `ABS_Y`, `ABS_PRESSURE` …).
        case singleTouch(axes: [Int32])
    }

    /// What became of the touch at one frame.
    enum Outcome: Sendable, Hashable {
        /// Still down, within the slop, before the long-press duration.
        case held
        /// It lifted or moved beyond the slop before the duration: the app gets it.
        case revealed
        /// The duration passed first: it is gestured's alone.
        case rested
    }

    /// The frame time of its touch-down.
    let since: Timestamp
    /// Its touch-down point, in device units.
    let x: Int32
    let y: Int32
    let limits: AppTouchPolicy.RestLimits
    let origin: Origin

    /// `position`: where the touch is in the frame at `time` (device units); nil: it lifted.
    func outcome(at time: Timestamp, position: (x: Int32, y: Int32)?, millimetresPerUnit: (x: Double, y: Double)) -> Outcome {
        if time - since >= limits.duration { return .rested }
        guard let position else { return .revealed }
        let travel = SurfacePoint(
            millimetresX: (Double(position.x) - Double(x)) * millimetresPerUnit.x,
            y: (Double(position.y) - Double(y)) * millimetresPerUnit.y)
        return travel.length > limits.slop ? .revealed : .held
    }
}
