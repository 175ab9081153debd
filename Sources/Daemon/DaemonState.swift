import GestureCore
import GestureProtocol
import SystemCalls

/// What the daemon knows about itself and tells clients (`hello`, `status`, `metrics`):
/// the sources (devices) it reads, its delivery counters, its gesture and latency metrics, and when a
/// touch was last read. One instance, owned by `Daemon`: only the daemon adds and removes
/// devices; the socket server's parts count into `counters` and `metrics`; `lastTouch` is
/// the activity watch's (`ActivityMonitor`), read, never copied.
public final class DaemonState {
    /// The version in `hello` and `status`.
    public let version: String
    /// When the daemon started (CLOCK_MONOTONIC µs), for `uptime`.
    public let startTime: UInt64
    /// The sources being read, in the order they were added.
    public internal(set) var sources: [InputSource] = []
    /// Their devices (`hello`, `status`, `metrics`).
    public var devices: [DeviceInfo] { sources.map(\.device) }
    /// The `status` counters.
    public internal(set) var counters = StatusMessage.Counters()
    /// Gesture, touch and latency counts for `metrics` (docs/metrics.md).
    public let metrics = DaemonMetrics()
    /// Where `lastTouch` comes from (set by the daemon).
    weak var activity: ActivityWatch?

    init(version: String) {
        self.version = version
        startTime = monotonicMicroseconds()
    }

    /// When the daemon last read a touch on any device: the monotonic time it read a frame
    /// with a finger down (docs/protocol.md, `status`'s `lastTouch`); nil before the first.
    public var lastTouch: Timestamp? { activity?.lastTouch }

    /// The `hello` every client gets first.
    var hello: HelloMessage { HelloMessage(version: version, devices: devices) }

    /// The `status` answer now.
    func status(clients: Int, maxClients: Int) -> StatusMessage {
        StatusMessage(
            version: version, uptime: (monotonicMicroseconds() - startTime) / 1_000_000, lastTouch: lastTouch, devices: devices,
            clients: clients, maxClients: maxClients, counters: counters, ghosts: sources.flatMap(\.ghosts))
    }

    /// The `metrics` answer now: built from the counters on the loop thread, so a scrape
    /// costs one walk over at most `DaemonMetrics`' bounded series and never waits.
    func metricsMessage(clients: Int) -> MetricsMessage {
        let now = monotonicMicroseconds()
        return metrics.message(
            uptime: (now - startTime) / 1_000_000, devices: devices, clients: clients, dropped: counters.dropped,
            lastTouch: lastTouch, now: Timestamp(microseconds: now), wallClock: realtimeMicroseconds())
    }
}
