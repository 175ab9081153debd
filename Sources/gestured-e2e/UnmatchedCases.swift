import Foundation
import GestureTestSupport

/// A touchscreen that no `[[device]]` entry matches while another entry passes devices
/// through (the Raspberry Pi 7" display's `(00)` variant against a pattern for `(79)`): the
/// daemon must say so at start (its log), in the `STATUS=` line sent with `READY=1`, and
/// `gestured devices` and `gestured check-config` must say so too, each with the kernel's
/// name and a `match-name` that matches it; with that pattern in the file, nothing is said.
struct UnmatchedCases {
    let gestured: String
    let work: String
    let elanDescription: String

    static let panelName = "10-0038 generic ft5x06 (00)"
    static let suggestion = "match-name = \"*generic ft5x06 (*)\" would match it"

    static func config(matchName: String) -> String {
        """
        [daemon]
        log-level = "info"

        [[device]]
        match-name = "\(matchName)"
        pass-through = true
        """
    }

    func run(_ harness: Harness) {
        let name =
            "unmatched touchscreen: the log, STATUS=, gestured devices and check-config name it and a pattern for it; with that pattern, none does"
        guard harness.wants(name) else { return }
        harness.run(name) {
            let missing = "\(work)/unmatched.toml"
            let fixed = "\(work)/unmatched-fixed.toml"
            try write(Self.config(matchName: "*generic ft5x06 (79)"), to: missing)
            try write(Self.config(matchName: "*generic ft5x06 (*)"), to: fixed)
            let panel = try TouchPanel(descriptionFile: elanDescription, name: Self.panelName)
            let daemon = try DaemonProcess(
                executable: gestured, config: missing, socketPath: "\(work)/unmatched.sock", logPath: "\(work)/unmatched.log")
            defer { daemon.stop() }
            let named = "touchscreen \"\(Self.panelName)\" matches no [[device]] entry"
            let log = daemon.log(since: 0).filter { $0.contains(named) }
            try expect(log.contains { $0.contains(Self.suggestion) }, "the log does not name it: \(tail(daemon.logPath))")
            try expect(
                daemon.readyMessage.contains(named) && daemon.readyMessage.contains(Self.suggestion),
                "STATUS= does not name it: \(daemon.readyMessage)")
            let block = listingBlock(try devicesListing(gestured: gestured, config: missing, work: work), node: panel.devnode)
            try expect(
                block.contains { $0.hasPrefix("  warning: \(named)") && $0.contains(Self.suggestion) },
                "gestured devices does not name it: \(block)")
            try expect(
                checkConfig(missing).contains { $0.contains(named) && $0.contains(Self.suggestion) }, "check-config does not name it")
            try expect(!checkConfig(fixed).contains { $0.contains(named) }, "check-config still names it with the suggested pattern")
        }
    }

    /// `gestured check-config FILE`'s standard output, line by line (it must exit 0).
    private func checkConfig(_ file: String) throws(CaseFailure) -> [String] {
        let output = "\(work)/check-config.txt"
        let pid = try spawn(gestured, ["check-config", file], logPath: "\(work)/check-config.log", stdoutPath: output)
        guard waitForExit(pid, timeout: 30) == 0 else { throw CaseFailure("check-config failed: \(tail("\(work)/check-config.log"))") }
        return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func write(_ text: String, to path: String) throws(CaseFailure) {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else { throw CaseFailure("cannot write \(path)") }
    }
}
