import Foundation
import Recordings
import Testing

/// The shared corpus, found as every test target finds it (`Corpus` in Recordings).
let corpusRoot: String? = Corpus.root

/// Runs a built executable (or an absolute path) to completion and returns its standard output and status.
func runToCompletion(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (output: String, error: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: name.hasPrefix("/") ? name : try builtExecutable(name))
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self), process.terminationStatus)
}

func jsonObject(_ line: some StringProtocol) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw TestFailure(description: "not a JSON object: \(line)")
    }
    return object
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
        let expected = try offline.output.split(separator: "\n").map(jsonObject)
        #expect(!expected.isEmpty)

        let daemon = try DaemonProcess(extraArguments: ["--replay", path, "--speed", "40", "--wait-for-subscriber"])
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(ofType: "hello")
        client.send(#"{"type":"subscribe"}"# + "\n")
        let added = try client.readMessage()
        #expect(added["type"] as? String == "device" && added["phase"] as? String == "added")
        #expect(added["kind"] as? String == "replay")
        var received: [[String: Any]] = []
        while true {
            let message = try client.readMessage()
            if message["type"] as? String == "device" {
                #expect(message["phase"] as? String == "removed")
                break
            }
            received.append(message)
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)

        #expect(received.count == expected.count)
        let offsets = Set(zip(received, expected).map { (($0["time"] as? Int) ?? 0) - (($1["time"] as? Int) ?? 0) })
        #expect(offsets.count == 1, "one constant time shift, got \(offsets)")
        let seqs = received.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(2..<(2 + received.count)), "seq continues after the device line")
        for (live, replayed) in zip(received, expected) {
            var live = live
            var replayed = replayed
            for key in ["seq", "time"] {
                live[key] = nil
                replayed[key] = nil
            }
            #expect(NSDictionary(dictionary: live) == NSDictionary(dictionary: replayed))
        }
    }

    /// `--exit-after-replay`: the daemon plays the bundled demo, sends everything it produced
    /// (the last lift's events included), says goodbye as the very last line and exits 0.
    @Test func exitAfterReplayDeliversEverythingThenGoodbye() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path
        let offline = try runToCompletion("gestured", ["replay", demo])
        let expected = try offline.output.split(separator: "\n").map(jsonObject)
        let daemon = try DaemonProcess(extraArguments: ["--replay", demo, "--speed", "20", "--wait-for-subscriber", "--exit-after-replay"])
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(ofType: "hello")
        client.send(#"{"type":"subscribe","gestures":["tap","long-press","drag","swipe","pinch","rotate","press"]}"# + "\n")
        var gestures: [[String: Any]] = []
        var last: [String: Any] = [:]
        while last["type"] as? String != "goodbye" {
            last = try client.readMessage()
            if last["type"] as? String == "gesture" { gestures.append(last) }
        }
        #expect(last["reason"] as? String == "replay finished")
        #expect(try daemon.waitForExit() == 0)
        #expect(gestures.count == expected.count)
        #expect(gestures.last?["gesture"] as? String == expected.last?["gesture"] as? String)
        #expect(gestures.last?["phase"] as? String == "ended")
    }
}
