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
