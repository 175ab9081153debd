import Foundation
import Testing

/// The shared corpus (`../shared/corpus` beside the project, found further up from a
/// worktree), or `GESTURED_CORPUS`; the same lookup as RecordingsTests' `Corpus`.
let corpusRoot: String? = {
    let fileManager = FileManager.default
    if let override = ProcessInfo.processInfo.environment["GESTURED_CORPUS"], !override.isEmpty {
        return fileManager.fileExists(atPath: override) ? override : nil
    }
    var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        if fileManager.fileExists(atPath: candidate) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}()

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
}
