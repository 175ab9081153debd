import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// The daemon's `metrics` reply against what a subscriber received, over a replay.
@Suite struct MetricsProgramTests {
    /// The real daemon playing the demo with a region: its `metrics` reply counts exactly the
    /// gestures a subscriber received (by device, region, gesture and phase), the touch-downs
    /// among its `touch` lines, and one latency observation per line delivered to it.
    @Test func theDaemonsCountersMatchWhatASubscriberReceived() throws {
        let configuration = """
            [[region]]
            name = "left"
            rect = [0, 0, 0.5, 1]
            """
        let daemon = try DaemonProcess(
            extraArguments: ["--replay", ComposedReplayTests.demo, "--speed", "20", "--wait-for-subscriber"], configuration: configuration)
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")
        var expected: [String: UInt64] = [:]
        var touchDowns: UInt64 = 0
        var delivered: UInt64 = 0
        var device = ""
        while true {
            switch try client.readMessage() {
            case .device(let message):
                device = message.device.name
                if message.phase == .removed { break }
                continue
            case .gesture(let gesture):
                let key = "\(device)|\(gesture.region ?? "-")|\(gesture.gesture)|\(gesture.phase)"
                expected[key, default: 0] += 1
                delivered += 1
                continue
            case .touch(let touch):
                if touch.phase == .began { touchDowns += 1 }
                delivered += 1
                continue
            case .hello, .activity, .pong, .status, .metrics, .error, .overflow, .goodbye, .unknown:
                continue
            }
            break
        }
        let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        try client.send(#"{"type":"metrics"}"# + "\n")
        let line = try #require(client.readLine())
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)

        guard case .metrics(let metrics) = try WireDecoder.message(Array(line.utf8)) else {
            Issue.record("not a metrics reply: \(line)")
            return
        }
        #expect(expected.keys.contains { $0.contains("|left|") }, "the demo touches the region")
        #expect(expected.keys.contains { $0.contains("|-|") }, "and outside it")
        #expect(metrics.gestureCounts == expected)
        #expect(metrics.inputs == [MetricsMessage.DeviceInputs(device: device, touches: touchDowns, synDropped: 0)])
        #expect(touchDowns > 0)
        #expect(metrics.latency.count == delivered)
        #expect(metrics.devices.isEmpty, "the recording is over")
        #expect(metrics.clients == 1)
        guard let lastTouch = metrics.lastTouch else {
            Issue.record("no lastTouch after the demo's touches")
            return
        }
        #expect(lastTouch <= before + 1_000_000 && lastTouch > before - 60_000_000)
    }
}
