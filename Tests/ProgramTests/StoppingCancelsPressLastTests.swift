import Foundation
import GestureProtocol
import GestureTestSupport
import SystemCalls
import Testing

/// The daemon stopping is one more path on which the press brackets everything: a finger
/// held when SIGTERM comes ends its long press `cancelled` first, its press last, before
/// the device goes and the goodbye.
@Suite struct StoppingCancelsPressLastTests {
    @Test func stoppingMidHoldCancelsTheLongPressThenThePress() throws {
        let directory = TemporaryDirectory()
        let recording = try ComposedReplayTests.hold(atX: 994, y: 562, seconds: 20, in: directory)
        let daemon = try DaemonProcess(extraArguments: ["--replay", recording, "--wait-for-subscriber"])
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(#"{"type":"subscribe","gestures":["press","long-press"]}"# + "\n")
        var seen: [String] = []
        while !seen.contains("long-press began") {
            if let gesture = try client.readMessage().gesture {
                seen.append("\(gesture.gesture) \(gesture.phase)")
            }
        }
        daemon.signal(SIGTERM)
        var last = try client.readMessage()
        while last.goodbye == nil {
            switch last {
            case .gesture(let gesture): seen.append("\(gesture.gesture) \(gesture.phase)")
            case .device(let device): seen.append("device \(device.phase)")
            case .hello, .touch, .activity, .pong, .status, .metrics, .error, .overflow, .goodbye, .unknown: break
            }
            last = try client.readMessage()
        }
        #expect(try daemon.waitForExit() == 0)
        #expect(
            seen.filter { !$0.hasSuffix("changed") }
                == ["press began", "long-press began", "long-press cancelled", "press cancelled", "device removed"])
    }
}
