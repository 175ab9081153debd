import GestureProtocol
import Prometheus

/// `GET /metrics` in the Prometheus text format (docs/metrics.md), from one `metrics` reply
/// of the daemon, or from none (the daemon unreachable: `gestured_up 0`, and why in a comment).
///
/// Counters and gauges go through swift-prometheus' `PrometheusCollectorRegistry` (names,
/// label escaping, `# HELP` and `# TYPE`), a fresh one per scrape: the values are the
/// daemon's, and they are set, not accumulated here. The latency histogram arrives as the
/// daemon's bucket counts, which swift-prometheus' `Histogram` cannot take (it only records
/// single observations), so its lines are written here in the same format.
public enum MetricsExposition {
    /// The text format's content type.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The page for the daemon's reply, or for why there is none (said in a comment line).
    public static func render(_ result: Result<MetricsMessage, any Error>) -> [UInt8] {
        let registry = PrometheusCollectorRegistry()
        let up = registry.makeGauge(descriptor: name("up", help: "1 when gestured answered this scrape, 0 when it could not be reached"))
        let daemon: MetricsMessage
        switch result {
        case .success(let metrics):
            daemon = metrics
            up.set(1.0)
        case .failure(let error):
            up.set(0.0)
            let reason = String("\(error)".map { $0.isNewline ? " " : $0 })
            return registry.emitToBuffer() + Array("# \(reason)\n".utf8)
        }
        registry.makeGauge(descriptor: name("uptime", unit: "seconds", help: "Seconds since gestured started")).set(Double(daemon.uptime))
        registry.makeGauge(descriptor: name("devices", help: "Input devices gestured reads")).set(Double(daemon.devices.count))
        // The daemon counts this scrape's own connection among its clients.
        registry.makeGauge(descriptor: name("clients", help: "Clients connected to gestured's socket (browsers included)"))
            .set(Double(max(0, daemon.clients - 1)))
        registry.makeCounter(descriptor: name("dropped_events", unit: "total", help: "Event lines dropped for slow clients"))
            .increment(by: Int64(clamping: daemon.dropped))
        registry.makeGauge(
            descriptor: name(
                "last_touch_timestamp", unit: "seconds",
                help: "Unix time of the last input frame with any contact on any device, 0 before the first")
        )
        .set(Double(daemon.lastTouch ?? 0) / 1_000_000)
        let gestures = name("gestures", unit: "total", help: "Gesture events by gesture, phase, region (empty: the top level) and device")
        for series in daemon.gestures {
            for count in series.counts {
                let labels = [
                    ("gesture", count.gesture.rawValue), ("phase", count.phase.rawValue), ("region", series.region ?? ""),
                    ("device", series.device),
                ]
                registry.makeCounter(descriptor: gestures, labels: labels).increment(by: Int64(clamping: count.count))
            }
        }
        let touches = name("touches", unit: "total", help: "Touch-downs by device")
        let synDropped = name("syn_dropped", unit: "total", help: "SYN_DROPPED recoveries (the kernel lost input events) by device")
        let filtered = name(
            "touches_filtered", unit: "total",
            help: "Touches touch hygiene dropped or ended, by reason (bounce, repeat, too-short, phantom, stuck, zero-duration) and device")
        for inputs in daemon.inputs {
            registry.makeCounter(descriptor: touches, labels: [("device", inputs.device)]).increment(by: Int64(clamping: inputs.touches))
            registry.makeCounter(descriptor: synDropped, labels: [("device", inputs.device)])
                .increment(by: Int64(clamping: inputs.synDropped))
            for count in inputs.filtered {
                registry.makeCounter(descriptor: filtered, labels: [("device", inputs.device), ("reason", count.reason)])
                    .increment(by: Int64(clamping: count.count))
            }
        }
        var text = registry.emitToBuffer()
        appendHistogram(
            name: "gestured_delivery_latency_seconds",
            help: "Time from an event's input to gestured writing it to a client's socket, per line and client", daemon.latency,
            to: &text)
        return text
    }

    private static func name(_ metric: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "gestured", metricName: metric, unitName: unit, helpText: help)
    }

    /// A histogram in microseconds as seconds: `# HELP`, `# TYPE`, the cumulative
    /// `_bucket{le=…}` lines, `+Inf`, `_sum`, `_count`.
    static func appendHistogram(name: String, help: String, _ histogram: MetricsMessage.LatencyHistogram, to text: inout [UInt8]) {
        var lines = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for bucket in histogram.buckets {
            lines += "\(name)_bucket{le=\"\(seconds(bucket.le))\"} \(bucket.count)\n"
        }
        lines += "\(name)_bucket{le=\"+Inf\"} \(histogram.count)\n"
        lines += "\(name)_sum \(seconds(histogram.sum))\n"
        lines += "\(name)_count \(histogram.count)\n"
        text += Array(lines.utf8)
    }

    private static func seconds(_ microseconds: UInt64) -> String {
        "\(Double(microseconds) / 1_000_000)"
    }
}
