import Foundation
import GestureProtocol
import GestureTestSupport
import Recordings
import SystemCalls
import Testing

/// `run --replay` with recorded times the host's clock does not expect, and speeds at and
/// beyond the accepted range (arithmetic overflow traps, a replay that never played).
@Suite struct ReplayTimingTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path

    /// The demo with every event time changed by `retime` (seconds.microseconds kept in evemu form).
    static func retimedDemo(in directory: TemporaryDirectory, name: String, _ retime: (_ index: Int, _ time: UInt64) -> UInt64) throws
        -> String
    {
        var index = 0
        let lines = try String(contentsOfFile: demo, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map {
            line -> String in
            guard line.hasPrefix("E: "), let space = line.dropFirst(3).firstIndex(of: " ") else { return String(line) }
            let stamp = line[line.index(line.startIndex, offsetBy: 3)..<space].split(separator: ".")
            let time = UInt64(stamp[0])! * 1_000_000 + UInt64(stamp[1])!
            let new = retime(index, time)
            index += 1
            let micros = String(new % 1_000_000)
            return "E: \(new / 1_000_000).\(String(repeating: "0", count: 6 - micros.count))\(micros)\(line[space...])"
        }
        let path = directory.file(name)
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    static func gestureCount(offline path: String) throws -> Int {
        let offline = try runToCompletion("gestured", ["replay", path])
        #expect(offline.status == 0)
        return offline.output.split(separator: "\n").count
    }

    /// A recording stamped 10^9 s after boot (later than CLOCK_MONOTONIC, as most real ones)
    /// loops: the second and third passes arrive, their times after the first's.
    @Test func loopsARecordingStampedAfterTheHostClock() throws {
        let directory = TemporaryDirectory()
        let path = try Self.retimedDemo(in: directory, name: "late.events") { $1 + 1_000_000_000_000_000 }
        let perPass = try Self.gestureCount(offline: path)
        let daemon = try DaemonProcess(extraArguments: ["--replay", path, "--loop", "--speed", "1000", "--wait-for-subscriber"])
        let client = try gestureSubscriber(of: daemon)
        var times: [Timestamp] = []
        while times.count < 3 * perPass {
            times.append(try client.readMessage(\.gesture).time)
        }
        #expect(times == times.sorted(), "times keep increasing from pass to pass")
        #expect(times[perPass] > times[perPass - 1])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// A first event far ahead of the rest (10^9 s): the rest, earlier than the start of
    /// playback by more than the clock can go back, play at once (the engine sees them at the
    /// start, as `replay` sees them at the first event's time) instead of never.
    @Test func aFirstEventFarAheadOfTheRestDoesNotHoldThePlayback() throws {
        let directory = TemporaryDirectory()
        let path = try Self.retimedDemo(in: directory, name: "first-late.events") { index, time in
            index == 0 ? 1_000_000_000_000_000 : time
        }
        let daemon = try DaemonProcess(extraArguments: ["--replay", path, "--speed", "100", "--wait-for-subscriber", "--exit-after-replay"])
        let client = try gestureSubscriber(of: daemon)
        var gestures = 0
        var last = try client.readMessage()
        while last.goodbye == nil {
            if last.gesture != nil { gestures += 1 }
            last = try client.readMessage()
        }
        #expect(last.goodbye == "replay finished")
        #expect(gestures > 0)
        #expect(try daemon.waitForExit() == 0)
    }

    /// Speeds outside 0.01…1000 (and non-numbers) are refused before anything starts.
    @Test(arguments: ["1e-300", "1e300", "0", "-1", "0.001", "1001", "nan", "inf"])
    func speedOutsideTheRangeIsRefused(speed: String) throws {
        let directory = TemporaryDirectory()
        let result = try runToCompletion(
            "gestured", ["run", "--socket", directory.file("g.sock"), "--replay", Self.demo, "--speed=\(speed)"])
        #expect(result.status == 64, "\(result)")
        #expect(result.error.contains("--speed must be between 0.01 and 1000"), "\(result.error)")
    }

    /// The ends of the range are accepted: the demo plays to the end at both.
    @Test(arguments: ["0.01", "1000"])
    func speedAtTheEndsOfTheRangeIsAccepted(speed: String) throws {
        let daemon = try DaemonProcess(extraArguments: ["--replay", Self.demo, "--speed", speed, "--wait-for-subscriber"])
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(#"{"type":"subscribe"}"# + "\n")
        #expect(try client.readMessage().device?.phase == .added)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}
