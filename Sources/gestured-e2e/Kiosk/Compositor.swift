import Foundation
import GestureCore
import Glibc
import SystemCalls

/// A compositor on a headless output (1280×720, pixman) or on the guest's GPU (DRM), with
/// libinput for input, showing one client (`KioskClient`: wev, Chromium), both as `nobody`
/// (cage refuses to run as root). Ready once the client is: touches before that are lost.
final class Compositor {
    let kind: CompositorKind
    let pid: pid_t
    let logPath: String
    let work: String
    /// The compositor's `XDG_RUNTIME_DIR` (its Wayland socket, sway's IPC socket), also the
    /// client's `HOME` (a fresh profile for Chromium each run).
    let runtimeDirectory: String
    /// The headless output's size in pixels (wlroots' default).
    static let headlessOutputSize = (width: 1280.0, height: 720.0)
    /// The output's size in logical pixels (a full-screen client's CSS pixels): what sway
    /// reports for its output; under cage and labwc the headless size (or the DRM mode's),
    /// width and height exchanged when cage's `-r` turns the output a quarter.
    private(set) var outputSize = Compositor.headlessOutputSize

    /// `output`: where it draws (headless, or the guest's GPU through DRM).
    init(
        _ kind: CompositorKind, setup: CompositorSetup = CompositorSetup(), client: some KioskClient, name: String, work: String,
        output: KioskStack.Output = .headless
    ) throws(CaseFailure) {
        self.kind = kind
        self.work = work
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
        if output == .drm, !RegularFile.anythingExists(path: "/dev/dri/card0") {
            throw CaseFailure("no /dev/dri/card0 for \(kind.rawValue) on DRM: the guest needs a virtio GPU (vm/run.sh --gpu)")
        }
        let command = try kind.commandLine(running: client.shellCommand, setup: setup, work: work, home: runtime)
        let defaults = [
            "XDG_RUNTIME_DIR=\(runtime)", "HOME=\(runtime)", "WLR_BACKENDS=headless,libinput", "WLR_RENDERER=pixman",
            "WLR_HEADLESS_OUTPUTS=1", "LIBSEAT_BACKEND=seatd",
            // wlroots 0.15 refuses to start with no input device yet: they come later.
            "WLR_LIBINPUT_NO_DEVICES=1",
        ]
        pid = try spawn(
            KioskRoot.setpriv, ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command,
            environment: Subprocess.environment(defaults, overriddenBy: output.environment), logPath: logPath)
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
        if output == .drm, kind != .sway {
            // The mode wlroots picks: the connector's preferred one, listed first.
            let mode = DrmConnector.connected().first?.modes.first?.split(separator: "x").compactMap { Double($0) }
            guard let mode, mode.count == 2 else {
                stop()
                throw CaseFailure("no mode for the DRM output: \(DrmConnector.describeAll())")
            }
            outputSize = (mode[0], mode[1])
        }
        if kind.program == "cage", setup.cageRotation.isQuarterTurn { outputSize = (outputSize.height, outputSize.width) }
        guard kind == .sway else { return }
        do throws(CaseFailure) {
            let outputs = try swayQuery("get_outputs").filter { $0["active"] as? Bool == true }
            guard outputs.count == 1, let rect = outputs[0]["rect"] as? [String: Any],
                let width = (rect["width"] as? NSNumber)?.doubleValue, let height = (rect["height"] as? NSNumber)?.doubleValue
            else { throw CaseFailure("sway reports active outputs \(outputs), not one with a size") }
            outputSize = (width, height)
        } catch {
            stop()
            throw error
        }
    }

    /// sway's answer to `swaymsg -t TYPE` (`get_inputs`, `get_outputs`) as JSON objects.
    func swayQuery(_ type: String) throws(CaseFailure) -> [[String: Any]] {
        let output = "\(work)/swaymsg.json"
        try swaymsg(["-r", "-t", type], stdoutPath: output)
        guard let data = FileManager.default.contents(atPath: output),
            let objects = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { throw CaseFailure("swaymsg -t \(type) printed no list of objects: \(tail(output))") }
        return objects
    }

    /// Runs `command` in sway, as a line of its configuration would (`swaymsg COMMAND`).
    func swayCommand(_ command: String) throws(CaseFailure) {
        try swaymsg([command], stdoutPath: "\(work)/swaymsg.out")
    }

    private func swaymsg(_ arguments: [String], stdoutPath: String) throws(CaseFailure) {
        guard kind == .sway else { throw CaseFailure("swaymsg needs sway, not \(kind.rawValue)") }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? []
        guard let socket = entries.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) else {
            throw CaseFailure("no sway IPC socket in \(runtimeDirectory): \(entries)")
        }
        let log = "\(work)/swaymsg.log"
        let pid = try spawn(
            KioskRoot.swaymsg, ["-s", "\(runtimeDirectory)/\(socket)"] + arguments, logPath: log, stdoutPath: stdoutPath)
        guard waitForExit(pid, timeout: 30) == 0 else {
            throw CaseFailure("swaymsg \(arguments.joined(separator: " ")) failed: \(tail(log)) \(tail(stdoutPath))")
        }
    }

    /// sway's identifiers (`vendor:product:name`, what its `input` lines match) of the touch
    /// devices it has, from `swaymsg -t get_inputs`; nil under cage.
    func swayTouchIdentifiers() throws(CaseFailure) -> [String]? {
        guard kind == .sway else { return nil }
        return try swayQuery("get_inputs").filter { $0["type"] as? String == "touch" }.compactMap { $0["identifier"] as? String }
    }

    /// Runs `command` (a shell command) in the compositor's session as its user, as a line
    /// of labwc's autostart would: with its `WAYLAND_DISPLAY`. Its output goes to
    /// `work/NAME.log`.
    func runInSession(_ command: String, name: String) throws(CaseFailure) -> pid_t {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? []
        guard let socket = entries.sorted().first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }) else {
            throw CaseFailure("no Wayland socket in \(runtimeDirectory): \(entries)")
        }
        let (uid, gid) = try KioskRoot.kioskUser()
        return try spawn(
            KioskRoot.setpriv, ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "/bin/sh", "-c", "exec \(command)"],
            environment: ["XDG_RUNTIME_DIR=\(runtimeDirectory)", "HOME=\(runtimeDirectory)", "WAYLAND_DISPLAY=\(socket)"],
            logPath: "\(work)/\(name).log")
    }

    /// SIGTERM (cage may abort on it: harmless), SIGKILL after 10 s.
    func stop() {
        Self.stopProcess(pid)
    }

    /// SIGTERM, SIGKILL after 10 s.
    static func stopProcess(_ pid: pid_t) {
        Subprocess.send(SIGTERM, to: pid)
        if waitForExit(pid, timeout: 10) == nil {
            Subprocess.send(SIGKILL, to: pid)
            _ = waitForExit(pid, timeout: 5)
        }
    }
}
