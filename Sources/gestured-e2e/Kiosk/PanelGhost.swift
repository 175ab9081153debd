import GestureCore
import GestureTestSupport
import SystemCalls

/// A panel's ghost touch as the Raspberry Pi Touch Display 2 makes it: a zero-duration
/// contact at one fixed point, on a fixed period, for as long as the panel runs. Its
/// touch-down and its lift are in one frame (a tracking id set and cleared before one
/// `SYN_REPORT`): as two frames in one write, the guest's scheduler can run the reader
/// woken by the first before the writer writes the second, and then the kernel stamps the
/// lift later than a ghost's (one of three such ghosts reached the page in both blanking
/// stacks), where a panel's driver reports both within one interrupt. The schedule is the
/// driver's clock; a ghost written late (a busy host) keeps the schedule of the ones after
/// it.
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

    /// The first ghost's tracking id: far from the panel's own (`TouchFrameWriter`'s, from 101).
    static let firstTrackingID: Int32 = 30_000

    /// Writes the ghost on `panel` (protocol B) if it is due; whether it did. Fingers down
    /// on the panel stay down: the ghost takes the slot after theirs.
    @discardableResult
    mutating func writeIfDue(on panel: TouchPanel) throws(CaseFailure) -> Bool {
        guard monotonicMicroseconds() >= due else { return false }
        let slot = Int32((panel.fingers.keys.max() ?? -1) + 1)
        let writer = TouchFrameWriter(panel.description)
        let frame = [
            (EV.abs, ABS.mtSlot, slot), (EV.abs, ABS.mtTrackingID, Self.firstTrackingID + Int32(written)),
            (EV.abs, ABS.mtPositionX, writer.axis(ABS.mtPositionX, spot.x)),
            (EV.abs, ABS.mtPositionY, writer.axis(ABS.mtPositionY, spot.y)), (EV.abs, ABS.mtTrackingID, -1),
            (EV.syn, SYN.report, 0),
        ].map { InputEvent(time: .zero, type: $0.0, code: $0.1, value: $0.2) }
        let before = monotonicMicroseconds()
        try panel.write(frame)
        writes.append(HygieneCases.WriteSpan(before: before, after: monotonicMicroseconds()))
        due += UInt64(period * 1_000_000)
        return true
    }
}
