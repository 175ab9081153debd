import Foundation
import Glibc
import SystemCalls

/// The kiosk tier's gestured as a systemd service (the tier's boot under systemd as PID 1,
/// `vm/test-kiosk.sh`): a unit in `/run/systemd/system` that runs the tier's daemon with the
/// packaged unit's own lines for what keeps a clone alive across the daemon's death
/// (`Type=`, `Restart=`, `NotifyAccess=`, `FileDescriptorStoreMax=`, read from
/// `systemd/gestured.service`) and a shorter `WatchdogSec=` (the tier waits out one timeout
/// per compositor). It runs as root without the packaged sandbox: the systemd tier proves
/// the sandboxed unit; this one puts the descriptor store between a crash and a compositor.
final class KioskService {
    static let unit = "gestured-kiosk.service"
    static let systemctl = "/bin/systemctl"
    static let journalctl = "/bin/journalctl"
    /// The packaged unit's settings that the descriptor store and the restart depend on.
    static let packagedKeys = ["Type", "Restart", "NotifyAccess", "FileDescriptorStoreMax"]
    /// Seconds without `WATCHDOG=1` before systemd kills the daemon (the package says 30).
    static let watchdogSeconds = 10
    let work: String

    /// How the daemon dies, each without lifting its touches.
    enum Death: CaseIterable {
        /// SIGSEGV to the main process.
        case crash
        /// `systemctl kill -s KILL`: every process of the unit.
        case killUnit
        /// SIGSTOP to the main process: no `WATCHDOG=1`, so systemd kills it (SIGABRT).
        case watchdog

        var what: String {
            switch self {
            case .crash: "a crash (SIGSEGV of the main process)"
            case .killUnit: "systemctl kill -s KILL (every process of the unit)"
            case .watchdog: "a watchdog timeout (the main process stopped)"
            }
        }
    }

    /// Writes the unit for `gestured run --config CONFIG --socket SOCKET` and starts it:
    /// systemctl returns once the daemon said `READY=1`.
    init(gestured: String, config: String, socket: String, packagedUnit: String, work: String) throws(CaseFailure) {
        self.work = work
        guard RegularFile.anythingExists(path: "/run/systemd/system") else {
            throw CaseFailure("systemd is not PID 1 here (no /run/systemd/system): vm/test-kiosk.sh boots it with vm/run.sh --systemd")
        }
        guard let packaged = try? String(contentsOfFile: packagedUnit, encoding: .utf8) else {
            throw CaseFailure("cannot read the packaged unit \(packagedUnit)")
        }
        let kept = packaged.split(separator: "\n").filter { line in
            Self.packagedKeys.contains { line.hasPrefix("\($0)=") }
        }
        try expect(
            kept.count == Self.packagedKeys.count, "\(packagedUnit) lacks one of \(Self.packagedKeys): it has \(kept)")
        let text = """
            [Unit]
            Description=the kiosk tier's gestured (vm/test-kiosk.sh, under systemd)

            [Service]
            ExecStart=\(gestured) run --config \(config) --socket \(socket)
            \(kept.joined(separator: "\n"))
            WatchdogSec=\(Self.watchdogSeconds)

            """
        let path = "/run/systemd/system/\(Self.unit)"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CaseFailure("cannot write \(path)")
        }
        _ = try systemctl(["daemon-reload"])
        _ = try systemctl(["start", Self.unit])
    }

    /// `systemctl ARGUMENTS`' output; a failure carries its error output.
    @discardableResult
    func systemctl(_ arguments: [String]) throws(CaseFailure) -> String {
        try run(Self.systemctl, arguments, name: "systemctl")
    }

    private func run(_ program: String, _ arguments: [String], name: String) throws(CaseFailure) -> String {
        let output = "\(work)/\(name).out"
        let log = "\(work)/\(name).log"
        let pid = try spawn(program, arguments + ["--no-pager"], logPath: log, stdoutPath: output)
        let status = waitForExit(pid, timeout: 120)
        guard status == 0 else {
            throw CaseFailure(
                "\(name) \(arguments.joined(separator: " ")) exited with \(status.map(String.init) ?? "nothing in 120 s"): \(tail(log))")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// A property of the unit (`systemctl show -p NAME --value`).
    func property(_ name: String) throws(CaseFailure) -> String {
        try systemctl(["show", "-p", name, "--value", Self.unit]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func number(_ name: String) throws(CaseFailure) -> Int {
        let text = try property(name)
        guard let value = Int(text) else { throw CaseFailure("\(Self.unit)'s \(name) is \"\(text)\"") }
        return value
    }

    var mainPID: pid_t { get throws(CaseFailure) { pid_t(try number("MainPID")) } }
    var restarts: Int { get throws(CaseFailure) { try number("NRestarts") } }
    var storedDescriptors: Int { get throws(CaseFailure) { try number("NFileDescriptorStore") } }

    /// The processes of the unit's control group (a guard process would be one more).
    var processes: [String] {
        get throws(CaseFailure) {
            let group = try property("ControlGroup")
            let text = (try? String(contentsOfFile: "/sys/fs/cgroup\(group)/cgroup.procs", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init)
        }
    }

    /// The daemon's journal lines (messages only) since the boot.
    var journal: [String] {
        get throws(CaseFailure) {
            try run(Self.journalctl, ["-u", Self.unit, "-o", "cat"], name: "journalctl").split(separator: "\n").map(String.init)
        }
    }

    func journalCount(_ text: String) throws(CaseFailure) -> Int { try journal.filter { $0.contains(text) }.count }

    func kill(_ death: Death) throws(CaseFailure) {
        switch death {
        case .crash: try expect(Subprocess.send(SIGSEGV, to: try mainPID), "no main process to crash")
        case .killUnit: try systemctl(["kill", "-s", "KILL", Self.unit])
        case .watchdog: try expect(Subprocess.send(SIGSTOP, to: try mainPID), "no main process to stop")
        }
    }

    /// Stops the unit (the daemon lifts and removes its clones) and removes its file.
    func stop() {
        _ = try? systemctl(["stop", Self.unit])
        RegularFile.remove(path: "/run/systemd/system/\(Self.unit)")
        _ = try? systemctl(["daemon-reload"])
    }

    /// The sysfs device of an input node (`/sys/devices/virtual/input/inputN/eventM`): a
    /// device removed and created again has a new `inputN` even where its node name repeats.
    static func sysfsDevice(of node: String) -> String? {
        let name = (node as NSString).lastPathComponent
        return try? FileManager.default.destinationOfSymbolicLink(atPath: "/sys/class/input/\(name)")
    }
}
