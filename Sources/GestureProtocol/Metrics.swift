/// `{"type":"metrics",…}`: the answer to a `metrics` request: what the daemon counted, for
/// `gestured-web`'s `GET /metrics` (docs/metrics.md). Counters run from the daemon's start.
public struct MetricsMessage: Sendable, Hashable {
    /// Whole seconds since the daemon started.
    public var uptime: UInt64
    /// The devices in use now.
    public var devices: [DeviceInfo]
    /// Connected clients.
    public var clients: Int
    /// Event lines dropped for slow clients (`status`'s `counters.dropped`).
    public var dropped: UInt64
    /// Wall-clock time (microseconds since 1970, UTC) when the daemon last read a frame with
    /// any contact (a touch-down, a movement or a lift) on any device; nil when there was
    /// none since the daemon started.
    public var lastTouch: UInt64?
    /// Gesture events by device and region: one entry per pair that had any.
    public var gestures: [GestureSeries]
    /// Touch-downs and `SYN_DROPPED` recoveries by device.
    public var inputs: [DeviceInputs]
    /// Delivery latency of event lines: input time to written to a client's socket.
    public var latency: LatencyHistogram

    public init(
        uptime: UInt64, devices: [DeviceInfo], clients: Int, dropped: UInt64, lastTouch: UInt64?, gestures: [GestureSeries],
        inputs: [DeviceInputs], latency: LatencyHistogram
    ) {
        self.uptime = uptime
        self.devices = devices
        self.clients = clients
        self.dropped = dropped
        self.lastTouch = lastTouch
        self.gestures = gestures
        self.inputs = inputs
        self.latency = latency
    }

    /// The label the daemon counts under once its limits on distinct device or region names
    /// are reached (a hostile configuration must not grow its memory): `"other"`.
    public static let otherLabel = "other"

    /// The gesture events of one device in one region (`region` nil: the top level).
    public struct GestureSeries: Sendable, Hashable {
        public var device: String
        public var region: String?
        /// Non-zero counts only, in the documented order of gestures, then phases.
        public var counts: [GestureCount]

        public init(device: String, region: String?, counts: [GestureCount]) {
            self.device = device
            self.region = region
            self.counts = counts
        }
    }

    /// How many events of one gesture kind in one phase.
    public struct GestureCount: Sendable, Hashable {
        public var gesture: GestureKind
        public var phase: GesturePhase
        public var count: UInt64

        public init(gesture: GestureKind, phase: GesturePhase, count: UInt64) {
            self.gesture = gesture
            self.phase = phase
            self.count = count
        }
    }

    /// One device's raw input counts.
    public struct DeviceInputs: Sendable, Hashable {
        public var device: String
        /// Contacts that touched down (not those picked up after a `SYN_DROPPED`).
        public var touches: UInt64
        /// `SYN_DROPPED` recoveries: the kernel's buffer overflowed and events were lost.
        public var synDropped: UInt64
        /// Touches touch hygiene dropped or ended, by reason (`bounce`, `repeat`, `too-short`,
        /// `phantom`, `stuck`, `zero-duration`); only reasons counted at least once, in that order. On the
        /// wire an object `"filtered":{"bounce":2}`, left out when empty.
        public var filtered: [FilteredTouches]

        public init(device: String, touches: UInt64, synDropped: UInt64, filtered: [FilteredTouches] = []) {
            self.device = device
            self.touches = touches
            self.synDropped = synDropped
            self.filtered = filtered
        }
    }

    /// Touches touch hygiene dropped or ended for one reason.
    public struct FilteredTouches: Sendable, Hashable {
        public var reason: String
        public var count: UInt64

        public init(reason: String, count: UInt64) {
            self.reason = reason
            self.count = count
        }
    }

    /// A histogram in microseconds, cumulative as Prometheus has it: `buckets[i].count`
    /// observations were at most `buckets[i].le`; `count` is all of them (the `+Inf` bucket).
    public struct LatencyHistogram: Sendable, Hashable {
        public struct Bucket: Sendable, Hashable {
            /// Upper bound, microseconds.
            public var le: UInt64
            public var count: UInt64

            public init(le: UInt64, count: UInt64) {
                self.le = le
                self.count = count
            }
        }

        public var buckets: [Bucket]
        public var count: UInt64
        /// Sum of the observations, microseconds.
        public var sum: UInt64

        public init(buckets: [Bucket], count: UInt64, sum: UInt64) {
            self.buckets = buckets
            self.count = count
            self.sum = sum
        }
    }
}
