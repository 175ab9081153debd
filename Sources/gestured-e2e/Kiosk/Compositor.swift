import Foundation
import Glibc
import SystemCalls

/// A compositor on a headless output (1280×720, pixman) with libinput for input, showing
/// one client (`KioskClient`: wev, Chromium), both as `nobody` (cage refuses to run as
/// root). Ready once the client is: touches before that are lost.
final class Compositor {
    let kind: CompositorKind
    let pid: pid_t
    let logPath: String
    /// The compositor's `XDG_RUNTIME_DIR` (its Wayland socket, sway's IPC socket), also the
    /// client's `HOME` (a fresh profile for Chromium each run).
    let runtimeDirectory: String
    /// The headless output's size in pixels (wlroots' default).
    static let outputSize = (width: 1280.0, height: 720.0)

    /// `environment`: variables added to (or replacing) the headless defaults, e.g.
    /// `WLR_BACKENDS=drm,libinput` for a real output.
    init(
        _ kind: CompositorKind, setup: CompositorSetup = CompositorSetup(), client: some KioskClient, name: String, work: String,
        environment: [String] = []
    ) throws(CaseFailure) {
        self.kind = kind
        logPath = "\(work)/\(name).log"
        let (uid, gid) = try KioskRoot.kioskUser()
        let runtime = "\(work)/xdg-\(name)"
        runtimeDirectory = runtime
        try? RegularFile.makeDirectory(path: runtime, mode: 0o700)
        do {
            try SystemCall.posixBlocking("chown", path: runtime) { chown(runtime, uid, gid) }
        } catch {
            throw CaseFailure("chown \(runtime): \(errorText(error.errno.rawValue))")
        }
        let command = try kind.commandLine(running: client.shellCommand, setup: setup, work: work)
        let defaults = [
            "XDG_RUNTIME_DIR=\(runtime)", "HOME=\(runtime)", "WLR_BACKENDS=headless,libinput", "WLR_RENDERER=pixman",
            "WLR_HEADLESS_OUTPUTS=1", "LIBSEAT_BACKEND=seatd",
            // wlroots 0.15 refuses to start with no input device yet: they come later.
            "WLR_LIBINPUT_NO_DEVICES=1",
        ]
        func key(_ entry: String) -> Substring { entry.prefix { $0 != "=" } }
        let replaced = Set(environment.map(key))
        pid = try spawn(
            KioskRoot.setpriv, ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command,
            environment: defaults.filter { !replaced.contains(key($0)) } + environment, logPath: logPath)
        let deadline = monotonicMicroseconds() + UInt64(client.readyTimeout * 1_000_000)
        while !client.isReady {
            if let code = waitForExit(pid, timeout: 0) {
                throw CaseFailure("\(kind.rawValue) exited with \(code) before its client was ready: \(tail(logPath)); \(client.recent)")
            }
            if monotonicMicroseconds() >= deadline {
                stop()
                throw CaseFailure(
                    "the client was not ready within \(Int(client.readyTimeout)) s: \(tail(logPath)); \(client.recent)")
            }
            client.pump(milliseconds: 200, alongside: nil)
        }
    }

    /// sway's identifiers (`vendor:product:name`, what its `input` lines match) of the touch
    /// devices it has, from `swaymsg -t get_inputs`; nil under cage.
    func swayTouchIdentifiers(work: String) throws(CaseFailure) -> [String]? {
        guard kind == .sway else { return nil }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? []
        guard let socket = entries.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) else {
            throw CaseFailure("no sway IPC socket in \(runtimeDirectory): \(entries)")
        }
        let output = "\(work)/swaymsg.json"
        let pid = try spawn(
            KioskRoot.swaymsg, ["-s", "\(runtimeDirectory)/\(socket)", "-r", "-t", "get_inputs"], logPath: "\(work)/swaymsg.log",
            stdoutPath: output)
        guard waitForExit(pid, timeout: 30) == 0, let data = FileManager.default.contents(atPath: output),
            let inputs = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { throw CaseFailure("swaymsg -t get_inputs failed: \(tail("\(work)/swaymsg.log"))") }
        return inputs.filter { $0["type"] as? String == "touch" }.compactMap { $0["identifier"] as? String }
    }

    /// SIGTERM (cage may abort on it: harmless), SIGKILL after 10 s.
    func stop() {
        Subprocess.send(SIGTERM, to: pid)
        if waitForExit(pid, timeout: 10) == nil {
            Subprocess.send(SIGKILL, to: pid)
            _ = waitForExit(pid, timeout: 5)
        }
    }
}
