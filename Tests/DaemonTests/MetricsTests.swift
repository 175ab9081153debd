import Daemon
import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// The daemon's counters for `/metrics` (docs/metrics.md): the counting itself, its bounds,
/// and the real daemon's `metrics` reply against what a subscriber received.
@Suite struct MetricsTests {
    static func event(_ kind: GestureKind, _ phase: GesturePhase, region: String? = nil, time: UInt64 = 1_000) -> GestureEvent {
        let details: GestureDetails =
            switch kind {
            case .tap: .tap(count: 1)
            case .longPress: .longPress
            default: .press
            }
        return GestureEvent(
            details, phase: phase, id: 1, time: Timestamp(microseconds: time), region: region, fingers: 1, location: Point(x: 0.5, y: 0.5))
    }

    @Test func gesturesCountByDeviceRegionGestureAndPhase() {
        let metrics = DaemonMetrics()
        metrics.count(Self.event(.tap, .ended), device: "A")
        metrics.count(Self.event(.tap, .ended), device: "A")
        metrics.count(Self.event(.tap, .ended, region: "menu"), device: "A")
        metrics.count(Self.event(.longPress, .began), device: "B")
        let message = metrics.message(
            uptime: 1, devices: [], clients: 0, dropped: 0, lastTouch: nil, now: Timestamp(microseconds: 0), wallClock: 0)
        #expect(message.gestureCounts == ["A|-|tap|ended": 2, "A|menu|tap|ended": 1, "B|-|long-press|began": 1])
        #expect(message.lastTouch == nil)
    }

    @Test func namesPastTheLimitsCountAsOther() {
        let metrics = DaemonMetrics()
        for index in 0..<(DaemonMetrics.maximumDevices + 3) {
            metrics.count(Self.event(.tap, .ended), device: "device \(index)")
        }
        for index in 0..<(DaemonMetrics.maximumRegions + 5) {
            metrics.count(Self.event(.tap, .ended, region: "region \(index)"), device: "device 0")
        }
        metrics.count(
            Self.event(.tap, .ended, region: String(repeating: "r", count: DaemonMetrics.maximumNameLength + 1)), device: "device 0")
        let counts = metrics.message(
            uptime: 1, devices: [], clients: 0, dropped: 0, lastTouch: nil, now: Timestamp(microseconds: 0), wallClock: 0
        ).gestureCounts
        #expect(counts["other|-|tap|ended"] == 3)
        #expect(counts["device 0|other|tap|ended"] == 6)
        #expect(counts["device 7|-|tap|ended"] == 1)
        #expect(counts["device 8|-|tap|ended"] == nil)
        #expect(counts["device 0|region 31|tap|ended"] == 1)
        #expect(counts["device 0|region 32|tap|ended"] == nil)
        // devices × (top level, named regions, other): the series stay bounded.
        #expect(counts.count == (DaemonMetrics.maximumDevices + 1) + DaemonMetrics.maximumRegions + 1)
    }

    @Test func touchDownsAndSynDroppedCountPerDeviceAndTheLastTouchIsWallClock() {
        let metrics = DaemonMetrics()
        let down = Contact(id: 1, phase: .began, location: Point(x: 0, y: 0), surfaceLocation: .zero)
        var pickedUp = down
        pickedUp.id = 2
        pickedUp.startedUnobserved = true
        var moved = down
        moved.phase = .moved
        metrics.count(TouchFrame(time: Timestamp(microseconds: 5_000_000), contacts: [down, pickedUp]), device: "A")
        metrics.count(TouchFrame(time: Timestamp(microseconds: 6_000_000), contacts: [moved]), device: "A")
        metrics.countSynDropped(2, device: "A")
        // The daemon's `lastTouch` (monotonic, `DaemonState`'s) 3 s before the reply.
        let message = metrics.message(
            uptime: 1, devices: [], clients: 0, dropped: 0, lastTouch: Timestamp(microseconds: 5_000_000),
            now: Timestamp(microseconds: 8_000_000), wallClock: 1_700_000_000_000_000)
        #expect(message.inputs == [MetricsMessage.DeviceInputs(device: "A", touches: 1, synDropped: 2)])
        // An optional on the left and a literal on the right: the expected value is an
        // `UInt64?` of its own, as `#expect` under AddressSanitizer (Swift 6.3.1) otherwise
        // reads a 9-byte optional from the literal's 8-byte slot (a stack-buffer-overflow
        // in the macro's AnyHashable conversion, not in our code).
        let expected: UInt64? = 1_700_000_000_000_000 - 3_000_000
        #expect(message.lastTouch == expected)
    }

    @Test func filteredTouchesCountPerDeviceAndReasonInReasonOrder() {
        let metrics = DaemonMetrics()
        for reason in [TouchHygieneReason.phantom, .bounce, .phantom, .stuck] {
            metrics.countFiltered(reason, device: "A")
        }
        let message = metrics.message(
            uptime: 1, devices: [], clients: 0, dropped: 0, lastTouch: nil, now: Timestamp(microseconds: 0), wallClock: 0)
        #expect(
            message.inputs == [
                MetricsMessage.DeviceInputs(
                    device: "A", touches: 0, synDropped: 0,
                    filtered: [.init(reason: "bounce", count: 1), .init(reason: "phantom", count: 2), .init(reason: "stuck", count: 1)])
            ])
    }

    @Test func latencyBucketsAreCumulativeWithTheirSum() {
        let metrics = DaemonMetrics()
        for microseconds: UInt64 in [0, 100, 101, 999, 2_000_000] {
            metrics.recordLatency(microseconds)
        }
        let latency = metrics.message(
            uptime: 1, devices: [], clients: 0, dropped: 0, lastTouch: nil, now: Timestamp(microseconds: 0), wallClock: 0
        ).latency
        #expect(latency.buckets.map(\.le) == DaemonMetrics.latencyBounds)
        #expect(latency.buckets.first == MetricsMessage.LatencyHistogram.Bucket(le: 100, count: 2))
        #expect(latency.buckets.first { $0.le == 1_000 }?.count == 4)
        #expect(latency.buckets.last?.count == 4)
        #expect(latency.count == 5)
        #expect(latency.sum == 2_001_200)
    }
}
