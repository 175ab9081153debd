import GestureCore
import GestureProtocol
import SystemCalls

/// What the daemon counts for `gestured-web`'s `/metrics` (docs/metrics.md), answered to a
/// `metrics` request.
///
/// Counting is on the event path, so it allocates nothing once a device and region pair has
/// been seen: a gesture event is two name look-ups and one increment. The label sets are
/// bounded whatever the configuration or the devices: at most `maximumDevices` device names
/// and `maximumRegions` region names (each at most `maximumNameLength` bytes) get their own
/// series; anything past that counts as `"other"` (`MetricsMessage.otherLabel`), so the
/// memory and the `metrics` reply stay bounded (below 1 MiB, the bridge's line limit).
public final class DaemonMetrics {
    /// Distinct device names counted on their own.
    public static let maximumDevices = 8
    /// Distinct region names counted on their own (the top level does not count).
    public static let maximumRegions = 32
    /// Longer names count as `"other"`.
    public static let maximumNameLength = 128
    /// Upper bounds of the delivery latency buckets, microseconds (100 µs to 1 s).
    public static let latencyBounds: [UInt64] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 1_000_000]

    private static let gestureKinds = GestureKind.allCases.sorted()
    private static let phases = GesturePhase.allCases
    private static let countsPerSeries = gestureKinds.count * phases.count

    /// Device slots: `0..<maximumDevices` by first appearance, then one for `"other"`.
    private var deviceSlots: [String: Int] = [:]
    private var deviceNames: [String] = []
    /// Region slots: 0 the top level, then by first appearance, then one for `"other"`.
    private var regionSlots: [String: Int] = [:]
    private var regionNames: [String?] = [nil]

    private struct SeriesKey: Hashable {
        var device: Int
        var region: Int
    }

    /// Where each pair's counts start in `gestureCounts`, and the pairs in order seen.
    private var seriesStart: [SeriesKey: Int] = [:]
    private var series: [SeriesKey] = []
    private var gestureCounts: [UInt64] = []
    private var touches = [UInt64](repeating: 0, count: maximumDevices + 1)
    private var synDropped = [UInt64](repeating: 0, count: maximumDevices + 1)
    /// Per device slot, then per `TouchHygieneReason.order`.
    private var filtered = [UInt64](repeating: 0, count: (maximumDevices + 1) * TouchHygieneReason.allCases.count)
    /// Non-cumulative: `latencyCounts[i]` for bound `i`, the last for larger ones.
    private var latencyCounts = [UInt64](repeating: 0, count: latencyBounds.count + 1)
    private var latencySum: UInt64 = 0

    public init() {}

    // MARK: Counting (the event path)

    /// Counts one gesture event of `device`.
    public func count(_ event: GestureEvent, device: String) {
        let key = SeriesKey(device: deviceSlot(device), region: regionSlot(event.region))
        let start: Int
        if let known = seriesStart[key] {
            start = known
        } else {
            start = gestureCounts.count
            seriesStart[key] = start
            series.append(key)
            gestureCounts.append(contentsOf: repeatElement(0, count: Self.countsPerSeries))
        }
        gestureCounts[start + event.kind.order * Self.phases.count + Self.index(event.phase)] += 1
    }

    /// Counts the touch-downs of one input frame of `device` (contacts picked up after a
    /// `SYN_DROPPED` did not touch down now and are not counted).
    public func count(_ frame: TouchFrame, device: String) {
        var began: UInt64 = 0
        for contact in frame.contacts where contact.phase == .began && !contact.startedUnobserved {
            began += 1
        }
        guard began > 0 else { return }
        touches[deviceSlot(device)] += began
    }

    /// Counts one touch touch hygiene dropped or ended on `device`.
    public func countFiltered(_ reason: TouchHygieneReason, device: String) {
        filtered[deviceSlot(device) * TouchHygieneReason.allCases.count + reason.order] += 1
    }

    /// Counts `SYN_DROPPED` recoveries of `device`.
    public func countSynDropped(_ count: Int, device: String) {
        synDropped[deviceSlot(device)] += UInt64(max(0, count))
    }

    /// Records one event line written to a client `microseconds` after its input time.
    public func recordLatency(_ microseconds: UInt64) {
        var bucket = 0
        while bucket < Self.latencyBounds.count, microseconds > Self.latencyBounds[bucket] { bucket += 1 }
        latencyCounts[bucket] += 1
        latencySum &+= microseconds
    }

    private func deviceSlot(_ name: String) -> Int {
        if let slot = deviceSlots[name] { return slot }
        guard deviceNames.count < Self.maximumDevices, name.utf8.count <= Self.maximumNameLength else { return Self.maximumDevices }
        deviceSlots[name] = deviceNames.count
        deviceNames.append(name)
        return deviceNames.count - 1
    }

    private func regionSlot(_ name: String?) -> Int {
        guard let name else { return 0 }
        if let slot = regionSlots[name] { return slot }
        guard regionNames.count <= Self.maximumRegions, name.utf8.count <= Self.maximumNameLength else {
            return Self.maximumRegions + 1
        }
        regionSlots[name] = regionNames.count
        regionNames.append(name)
        return regionNames.count - 1
    }

    private static func index(_ phase: GesturePhase) -> Int {
        switch phase {
        case .began: 0
        case .changed: 1
        case .ended: 2
        case .cancelled: 3
        }
    }

    // MARK: The reply

    /// The `metrics` reply: the counters now. `lastTouch` is the daemon's (monotonic,
    /// `DaemonState.lastTouch`); `now` and `wallClock` are the monotonic and the wall-clock
    /// time of the reply, to turn it into wall-clock time.
    public func message(
        uptime: UInt64, devices: [DeviceInfo], clients: Int, dropped: UInt64, lastTouch: Timestamp?, now: Timestamp, wallClock: UInt64
    ) -> MetricsMessage {
        let gestures = series.map { key in
            let start = seriesStart[key]!
            var counts: [MetricsMessage.GestureCount] = []
            for (kindIndex, kind) in Self.gestureKinds.enumerated() {
                for (phaseIndex, phase) in Self.phases.enumerated() {
                    let count = gestureCounts[start + kindIndex * Self.phases.count + phaseIndex]
                    if count > 0 { counts.append(MetricsMessage.GestureCount(gesture: kind, phase: phase, count: count)) }
                }
            }
            return MetricsMessage.GestureSeries(device: deviceLabel(key.device), region: regionLabel(key.region), counts: counts)
        }
        var inputs: [MetricsMessage.DeviceInputs] = []
        let reasons = TouchHygieneReason.allCases
        for slot in 0...Self.maximumDevices where slot < deviceNames.count || touches[slot] > 0 || synDropped[slot] > 0 {
            let counts = reasons.compactMap { reason in
                let count = filtered[slot * reasons.count + reason.order]
                return count > 0 ? MetricsMessage.FilteredTouches(reason: reason.rawValue, count: count) : nil
            }
            inputs.append(
                MetricsMessage.DeviceInputs(
                    device: deviceLabel(slot), touches: touches[slot], synDropped: synDropped[slot], filtered: counts))
        }
        var cumulative: UInt64 = 0
        var buckets: [MetricsMessage.LatencyHistogram.Bucket] = []
        for (bound, count) in zip(Self.latencyBounds, latencyCounts) {
            cumulative += count
            buckets.append(MetricsMessage.LatencyHistogram.Bucket(le: bound, count: cumulative))
        }
        let latency = MetricsMessage.LatencyHistogram(buckets: buckets, count: cumulative + latencyCounts.last!, sum: latencySum)
        let lastTouchWallClock = lastTouch.map { touch in
            wallClock - min(wallClock, now.microseconds - min(now.microseconds, touch.microseconds))
        }
        return MetricsMessage(
            uptime: uptime, devices: devices, clients: clients, dropped: dropped, lastTouch: lastTouchWallClock, gestures: gestures,
            inputs: inputs, latency: latency)
    }

    private func deviceLabel(_ slot: Int) -> String {
        slot < deviceNames.count ? deviceNames[slot] : MetricsMessage.otherLabel
    }

    private func regionLabel(_ slot: Int) -> String? {
        slot < regionNames.count ? regionNames[slot] : MetricsMessage.otherLabel
    }
}
