import Foundation
import GestureProtocol
import GestureTestSupport
import Recordings
import SystemCalls
import Testing

/// The shared corpus, found as every test target finds it (`Corpus` in Recordings).
let corpusRoot: String? = Corpus.root

/// Runs a built executable (or an absolute path) to completion and returns its standard output and status.
func runToCompletion(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (
    output: String, error: String, status: Int32
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: name.hasPrefix("/") ? name : try builtExecutable(name))
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe.closingOnExec()
    let error = Pipe.closingOnExec()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self), process.terminationStatus)
}

/// A line a program printed (`gestured replay`, `$GESTURED_EVENT`), read with the strict decoder.
func decodedLine(_ line: some StringProtocol) throws -> ServerMessage {
    try WireDecoder.message(Array(line.utf8))
}

/// `message` with its `seq` and `time` zeroed (events; other messages as they are): what a
/// live and an offline replay of one recording have in common.
func withoutSeqAndTime(_ message: ServerMessage) -> ServerMessage {
    func zeroed<Event>(_ event: Event, _ seq: WritableKeyPath<Event, UInt64>, _ time: WritableKeyPath<Event, Timestamp>) -> Event {
        var event = event
        event[keyPath: seq] = 0
        event[keyPath: time] = Timestamp(microseconds: 0)
        return event
    }
    switch message {
    case .gesture(let gesture): return .gesture(zeroed(gesture, \.seq, \.time))
    case .touch(let touch): return .touch(zeroed(touch, \.seq, \.time))
    case .device(let device): return .device(zeroed(device, \.seq, \.time))
    case .activity(let activity): return .activity(zeroed(activity, \.seq, \.time))
    case .hello, .pong, .status, .metrics, .error, .overflow, .goodbye, .unknown: return message
    }
}

/// A client of `daemon`, once it is ready, subscribed to every gesture (and no touches).
func gestureSubscriber(of daemon: DaemonProcess) throws -> LineClient {
    _ = try daemon.notify.wait(for: "READY=1")
    let client = try LineClient(path: daemon.socketPath)
    _ = try client.readMessage(\.hello)
    try client.send(#"{"type":"subscribe","gestures":["tap","long-press","drag","swipe","pinch","rotate","press"]}"# + "\n")
    return client
}

@Suite(.enabled(if: corpusRoot != nil, "needs the shared corpus"))
struct RunReplayTests {
    /// Touchscreen taps (multi-tap timers), a long hold (long-press timers, evtest text), a
    /// drag (Android getevent text) and a two-finger scroll.
    static let files = [
        "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
        "chromiumos-autotest-firmware_TouchMTB/data/two_finger_long_hold.dat",
        "MonkeyHelper-android-getevent/Phone/phone-single-drag.txt",
        "chromiumos-autotest-firmware_TouchMTB/data/2f_scroll_diagonal.dat",
    ]

    /// `run --replay` at 40× real time, with a subscriber that connected first, delivers the
    /// same gesture events as `gestured replay`: same order and fields, `seq` aside, and
    /// times shifted by one constant (the recording's clock moved onto the loop's).
    @Test(arguments: files)
    func liveReplayEqualsOfflineReplay(file: String) throws {
        let path = corpusRoot! + "/" + file
        let offline = try runToCompletion("gestured", ["replay", path])
        #expect(offline.status == 0)
        let expected = try offline.output.split(separator: "\n").map(decodedLine)
        #expect(!expected.isEmpty)

        let daemon = try DaemonProcess(extraArguments: ["--replay", path, "--speed", "40", "--wait-for-subscriber"])
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(#"{"type":"subscribe"}"# + "\n")
        let added = try #require(try client.readMessage().device)
        #expect(added.phase == .added)
        #expect(added.device.kind == .replay)
        var received: [ServerMessage] = []
        while true {
            let message = try client.readMessage()
            if let device = message.device {
                #expect(device.phase == .removed)
                break
            }
            received.append(message)
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)

        #expect(received.count == expected.count)
        let offsets = Set(
            zip(received, expected).map { live, replayed in
                Int64(bitPattern: (live.event?.time.microseconds ?? 0) &- (replayed.event?.time.microseconds ?? 0))
            })
        #expect(offsets.count == 1, "one constant time shift, got \(offsets)")
        let seqs = received.compactMap { $0.event?.seq }
        #expect(seqs == Array(2..<(2 + UInt64(received.count))), "seq continues after the device line")
        for (live, replayed) in zip(received, expected) {
            #expect(withoutSeqAndTime(live) == withoutSeqAndTime(replayed))
        }
    }

    /// `--exit-after-replay`: the daemon plays the bundled demo, sends everything it produced
    /// (the last lift's events included), says goodbye as the very last line and exits 0.
    @Test func exitAfterReplayDeliversEverythingThenGoodbye() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path
        let offline = try runToCompletion("gestured", ["replay", demo])
        let expected = try offline.output.split(separator: "\n").map(decodedLine)
        let daemon = try DaemonProcess(extraArguments: ["--replay", demo, "--speed", "20", "--wait-for-subscriber", "--exit-after-replay"])
        let client = try gestureSubscriber(of: daemon)
        var gestures: [GestureMessage] = []
        var last = try client.readMessage()
        while last.goodbye == nil {
            if let gesture = last.gesture { gestures.append(gesture) }
            last = try client.readMessage()
        }
        #expect(last.goodbye == "replay finished")
        #expect(try daemon.waitForExit() == 0)
        #expect(gestures.count == expected.count)
        #expect(gestures.last?.gesture == expected.last?.gesture?.gesture)
        #expect(gestures.last?.phase == .ended)
    }
}

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
