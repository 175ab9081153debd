/// Protocol A (`SYN_MT_REPORT`): every frame lists every contact down, without slots and
/// usually without tracking ids. Contacts are matched to the previous frame's by tracking id
/// when the device sends one, otherwise greedily by distance: the closest pair (in
/// millimetres) of unmatched previous contact and report is matched first, then the next
/// closest, and so on, with no distance limit. Unmatched reports begin, unmatched previous
/// contacts end; a frame with no report lifts everything.
struct UnslottedContacts: Sendable {
    /// One contact as reported between two `SYN_MT_REPORT`s.
    struct Report: Sendable {
        var x: Int32
        var y: Int32
        /// -1 when the device sends no tracking id.
        var trackingID: Int32
        var tool: Int32
    }

    /// A contact carried from frame to frame.
    struct Tracked: Sendable {
        var x: Int32
        var y: Int32
        var trackingID: Int32
        var contactID: UInt32
        var engagement: Engagement
        var startedUnobserved: Bool
    }

    let capacity: Int
    /// The report being assembled. Positions carry over from the previous report (the
    /// kernel does not filter protocol-A values, but a sloppy driver may omit an axis).
    private var pending = Report(x: 0, y: 0, trackingID: -1, tool: MTTool.finger)
    private var pendingHasData = false
    /// The pending report carried a negative tracking id: it describes no contact.
    private var pendingIsLift = false
    /// Reports of the frame being assembled.
    private(set) var reports: [Report] = []
    /// Contacts of the last frame.
    var tracked: [Tracked] = []
    /// Contacts of the frame being committed (swapped with `tracked`).
    var next: [Tracked] = []
    /// For each report, the index in `tracked` it continues (entries past the reports are
    /// left over from earlier frames).
    private(set) var matchOfReport: [Int?]
    /// For each entry of `tracked`, the report that continues it (entries past `tracked` are
    /// left over from earlier frames).
    private(set) var matchOfTracked: [Int?]
    /// True for the first frame after `SYN_DROPPED`: its contacts did not start there.
    private(set) var resyncing = false

    init(capacity: Int) {
        self.capacity = capacity
        reports.reserveCapacity(capacity)
        tracked.reserveCapacity(capacity)
        next.reserveCapacity(capacity)
        matchOfReport = Array(repeating: nil, count: capacity)
        matchOfTracked = Array(repeating: nil, count: capacity)
    }

    @inline(__always)
    mutating func setX(_ value: Int32) {
        pending.x = value
        pendingHasData = true
    }

    @inline(__always)
    mutating func setY(_ value: Int32) {
        pending.y = value
        pendingHasData = true
    }

    mutating func setTrackingID(_ value: Int32) {
        if value < 0 {
            pendingIsLift = true
        } else {
            pending.trackingID = value
        }
        pendingHasData = true
    }

    mutating func setTool(_ value: Int32) {
        pending.tool = value
    }

    /// `SYN_MT_REPORT` (or the `SYN_REPORT` after a report with no terminator): the
    /// pending report is complete. An empty one (no axis since the last) adds nothing; a
    /// report with a negative tracking id is no contact.
    mutating func endReport() {
        if pendingHasData && !pendingIsLift && reports.count < capacity {
            reports.append(pending)
        }
        resetPending()
    }

    private mutating func resetPending() {
        pendingHasData = false
        pendingIsLift = false
        pending.trackingID = -1
        pending.tool = MTTool.finger
    }

    /// Fills `matchOfReport` for the reports and `matchOfTracked` for `tracked`.
    mutating func match(millimetresPerUnit scale: (x: Double, y: Double)) {
        for index in reports.indices { matchOfReport[index] = nil }
        for index in tracked.indices { matchOfTracked[index] = nil }
        // 1. Tracking ids, when the device sends them.
        for reportIndex in reports.indices where reports[reportIndex].trackingID >= 0 {
            for trackedIndex in tracked.indices
            where matchOfTracked[trackedIndex] == nil && tracked[trackedIndex].trackingID == reports[reportIndex].trackingID {
                link(reportIndex, trackedIndex)
                break
            }
        }
        // 2. Greedy nearest neighbour among the contacts without ids.
        while true {
            var best: (report: Int, tracked: Int)? = nil
            var bestDistance = Double.infinity
            for reportIndex in reports.indices
            where matchOfReport[reportIndex] == nil && reports[reportIndex].trackingID < 0 {
                let report = reports[reportIndex]
                for trackedIndex in tracked.indices
                where matchOfTracked[trackedIndex] == nil && tracked[trackedIndex].trackingID < 0 {
                    let dx = (Double(report.x) - Double(tracked[trackedIndex].x)) * scale.x
                    let dy = (Double(report.y) - Double(tracked[trackedIndex].y)) * scale.y
                    let distance = dx * dx + dy * dy
                    if distance < bestDistance || best == nil {
                        bestDistance = distance
                        best = (reportIndex, trackedIndex)
                    }
                }
            }
            guard let pair = best else { break }
            link(pair.report, pair.tracked)
        }
    }

    private mutating func link(_ reportIndex: Int, _ trackedIndex: Int) {
        matchOfReport[reportIndex] = trackedIndex
        matchOfTracked[trackedIndex] = reportIndex
    }

    /// The frame is committed: `next` becomes `tracked`, the reports are consumed.
    mutating func finishFrame() {
        swap(&tracked, &next)
        next.removeAllFromEnd()
        reports.removeAllFromEnd()
        resyncing = false
    }

    /// Forgets the reports of an unreported partial frame.
    mutating func discardPending() {
        reports.removeAll(keepingCapacity: true)
        resetPending()
    }

    /// After `SYN_DROPPED`: nothing is known about the contacts any more.
    mutating func forget() {
        discardPending()
        tracked.removeAll(keepingCapacity: true)
        resyncing = true
    }
}
