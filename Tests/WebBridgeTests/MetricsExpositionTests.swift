import GestureProtocol
import Testing

@testable import WebBridge

/// `/metrics`' text (docs/metrics.md), read back with a reader of the text format's grammar:
/// every line a comment, `# HELP`, `# TYPE` or `name{label="value",…} number`.
@Suite("The bridge's /metrics page")
struct MetricsExpositionTests {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Unparsable: Error, CustomStringConvertible {
        var description: String
    }

    /// The samples of a page; throws on a line the format does not allow.
    static func samples(_ page: [UInt8]) throws -> [Sample] {
        var samples: [Sample] = []
        let text = String(decoding: page, as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var rest = Substring(line)
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
            guard !name.isEmpty, !(name.first!.isNumber) else { throw Unparsable(description: "no metric name: \(line)") }
            rest = rest.dropFirst(name.count)
            var labels: [String: String] = [:]
            if rest.first == "{" {
                rest = rest.dropFirst()
                while rest.first != "}" {
                    let label = rest.prefix { $0 != "=" }
                    rest = rest.dropFirst(label.count)
                    guard rest.hasPrefix("=\"") else { throw Unparsable(description: "bad label in \(line)") }
                    rest = rest.dropFirst(2)
                    var value = ""
                    while let character = rest.first, character != "\"" {
                        rest = rest.dropFirst()
                        if character == "\\" {
                            switch rest.first {
                            case "\\": value.append("\\")
                            case "\"": value.append("\"")
                            case "n": value.append("\n")
                            default: throw Unparsable(description: "bad escape in \(line)")
                            }
                            rest = rest.dropFirst()
                        } else {
                            value.append(character)
                        }
                    }
                    guard rest.first == "\"" else { throw Unparsable(description: "unterminated label value in \(line)") }
                    rest = rest.dropFirst()
                    if rest.first == "," { rest = rest.dropFirst() }
                    labels[String(label)] = value
                }
                rest = rest.dropFirst()
            }
            guard rest.first == " ", let value = Double(rest.dropFirst()) else { throw Unparsable(description: "bad value in \(line)") }
            samples.append(Sample(name: String(name), labels: labels, value: value))
        }
        return samples
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    static let hostile = "Panel \"9\" \\ \nnext"

    static let metrics = MetricsMessage(
        uptime: 42, devices: [DeviceInfo(name: hostile, kind: .touchscreen, path: "/dev/input/event5")], clients: 3, dropped: 4,
        lastTouch: 1_700_000_000_500_000,
        gestures: [
            .init(device: hostile, region: nil, counts: [.init(gesture: .tap, phase: .ended, count: 5)]),
            .init(device: hostile, region: "menu", counts: [.init(gesture: .longPress, phase: .began, count: 2)]),
        ],
        inputs: [.init(device: hostile, touches: 9, synDropped: 1, filtered: [.init(reason: "phantom", count: 4)])],
        latency: .init(buckets: [.init(le: 100, count: 2), .init(le: 1_000_000, count: 6)], count: 7, sum: 2_500_000))

    @Test func everyMetricFromTheDaemonsReply() throws {
        let samples = try Self.samples(MetricsExposition.render(.success(Self.metrics)))
        #expect(Self.value(samples, "gestured_up") == 1)
        #expect(Self.value(samples, "gestured_uptime_seconds") == 42)
        #expect(Self.value(samples, "gestured_devices") == 1)
        #expect(Self.value(samples, "gestured_clients") == 2, "the scrape's own connection is not a client")
        #expect(Self.value(samples, "gestured_dropped_events_total") == 4)
        #expect(Self.value(samples, "gestured_last_touch_timestamp_seconds") == 1_700_000_000.5)
        let top = ["gesture": "tap", "phase": "ended", "region": "", "device": Self.hostile]
        #expect(Self.value(samples, "gestured_gestures_total", top) == 5)
        let menu = ["gesture": "long-press", "phase": "began", "region": "menu", "device": Self.hostile]
        #expect(Self.value(samples, "gestured_gestures_total", menu) == 2)
        #expect(Self.value(samples, "gestured_touches_total", ["device": Self.hostile]) == 9)
        #expect(Self.value(samples, "gestured_syn_dropped_total", ["device": Self.hostile]) == 1)
        #expect(Self.value(samples, "gestured_touches_filtered_total", ["device": Self.hostile, "reason": "phantom"]) == 4)
        #expect(Self.value(samples, "gestured_delivery_latency_seconds_bucket", ["le": "0.0001"]) == 2)
        #expect(Self.value(samples, "gestured_delivery_latency_seconds_bucket", ["le": "1.0"]) == 6)
        #expect(Self.value(samples, "gestured_delivery_latency_seconds_bucket", ["le": "+Inf"]) == 7)
        #expect(Self.value(samples, "gestured_delivery_latency_seconds_count") == 7)
        #expect(Self.value(samples, "gestured_delivery_latency_seconds_sum") == 2.5)
        let text = String(decoding: MetricsExposition.render(.success(Self.metrics)), as: UTF8.self)
        #expect(text.contains("# TYPE gestured_delivery_latency_seconds histogram\n"))
        #expect(text.contains("# TYPE gestured_gestures_total counter\n"))
    }

    @Test func withoutTheDaemonOnlyUpZeroAndWhy() throws {
        struct Down: Error, CustomStringConvertible {
            var description: String { "cannot connect to gestured:\nno such file" }
        }
        let page = MetricsExposition.render(.failure(Down()))
        let samples = try Self.samples(page)
        #expect(samples == [Sample(name: "gestured_up", labels: [:], value: 0)])
        #expect(String(decoding: page, as: UTF8.self).hasSuffix("# cannot connect to gestured: no such file\n"))
    }
}
