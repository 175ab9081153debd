import GestureTestSupport
import SystemCalls

/// A panel's ghost touch as the Raspberry Pi Touch Display 2 makes it: a zero-duration
/// contact (its touch-down and its lift in one write, so the kernel stamps them
/// microseconds apart and libinput would report both at one instant) at one fixed point,
/// on a fixed period, for as long as the panel runs. The schedule is the driver's clock;
/// a ghost written late (a busy host) keeps the schedule of the ones after it.
struct PanelGhost {
    /// Where the ghost lands: the report's 95.00/2.40 mm on a 10" panel (217 × 136 mm).
    static let touchDisplay2Spot = Spot(0.44, 0.02)
    /// The report's period.
    static let touchDisplay2Period = 12.864  // s

    let spot: Spot
    /// Seconds between ghosts.
    let period: Double
    /// When the next ghost is due (CLOCK_MONOTONIC µs).
    private(set) var due: UInt64
    /// Each ghost's write: the kernel stamped its touch-down in between.
    private(set) var writes: [HygieneCases.WriteSpan] = []
    /// Ghosts written so far.
    var written: Int { writes.count }

    /// A ghost due at once, then every `period` seconds.
    init(spot: Spot = touchDisplay2Spot, period: Double = touchDisplay2Period, from start: UInt64 = monotonicMicroseconds()) {
        self.spot = spot
        self.period = period
        due = start
    }

    /// Milliseconds until the next ghost is due (0 when it is).
    var millisecondsToDue: Double {
        let now = monotonicMicroseconds()
        return now >= due ? 0 : Double(due - now) / 1000
    }

    /// Writes the ghost on `panel` if it is due; whether it did. Fingers down on the panel
    /// stay down: the ghost takes a finger number of its own.
    @discardableResult
    mutating func writeIfDue(on panel: TouchPanel) throws(CaseFailure) -> Bool {
        guard monotonicMicroseconds() >= due else { return false }
        let fingers = panel.fingers
        let ghostFinger = (fingers.keys.max() ?? -1) + 1
        let before = monotonicMicroseconds()
        try panel.frames([fingers.merging([ghostFinger: spot]) { held, _ in held }, fingers])
        writes.append(HygieneCases.WriteSpan(before: before, after: monotonicMicroseconds()))
        due += UInt64(period * 1_000_000)
        return true
    }
}
