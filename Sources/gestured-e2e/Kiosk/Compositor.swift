import Foundation
import Glibc
import SystemCalls

/// The Wayland compositors the kiosk tier runs (Debian 12's, both on wlroots 0.15).
enum CompositorKind: String, CaseIterable {
    case cage
    case sway
}

/// What every compositor needs, started once per boot: udevd (libinput finds and
/// classifies devices through it, and udev rules such as a calibration matrix apply) and
/// seatd (the seat wlroots opens the devices through). `rules` are written to
/// `/run/udev/rules.d` before udevd starts.
final class KioskSystem {
    let work: String
    private let udevd: pid_t
    private let seatd: pid_t
    static let seatSocket = "/run/seatd.sock"

    init(work: String, rules: String) throws(CaseFailure) {
        self.work = work
        try? RegularFile.makeDirectory(path: "/run/udev", mode: 0o755)
        try? RegularFile.makeDirectory(path: "/run/udev/rules.d", mode: 0o755)
        guard FileManager.default.createFile(atPath: "/run/udev/rules.d/70-kiosk.rules", contents: Data(rules.utf8)) else {
            throw CaseFailure("cannot write the udev rules")
        }
        udevd = try startUdevd(logPath: "\(work)/udevd.log", debug: false)
        // As root: the compositors run as nobody and reach the devices through it.
        do {
            seatd = try spawn(
                "/usr/sbin/seatd", ["-g", "nogroup"], environment: ["SEATD_VTBOUND=0"], logPath: "\(work)/seatd.log")
        } catch {
            _ = stopUdevd(udevd)
            throw error
        }
        let deadline = monotonicMicroseconds() + 30_000_000
        while !RegularFile.anythingExists(path: Self.seatSocket) {
            if monotonicMicroseconds() >= deadline || waitForExit(seatd, timeout: 0) != nil {
                stop()
                throw CaseFailure("seatd did not create \(Self.seatSocket): \(tail("\(work)/seatd.log"))")
            }
            pause(milliseconds: 20)
        }
    }

    func stop() {
        Subprocess.send(SIGTERM, to: seatd)
        if waitForExit(seatd, timeout: 5) == nil {
            Subprocess.send(SIGKILL, to: seatd)
            _ = waitForExit(seatd, timeout: 5)
        }
        _ = stopUdevd(udevd)
    }
}

/// A compositor on a headless output (1280×720, pixman) with libinput for input, running
/// wev (a real Wayland client that prints every `wl_touch` event) as its only client, both
/// as `nobody` (cage refuses to run as root). wev's output reaches the driver through a
/// FIFO (`WaylandClientLog`). Ready once wev's toplevel is `activated`: touches before that
/// are lost.
final class Compositor {
    let kind: CompositorKind
    let pid: pid_t
    let client: WaylandClientLog
    let logPath: String
    /// The compositor's `XDG_RUNTIME_DIR` (its Wayland socket, sway's IPC socket).
    let runtimeDirectory: String

    init(_ kind: CompositorKind, work: String) throws(CaseFailure) {
        self.kind = kind
        logPath = "\(work)/\(kind.rawValue).log"
        guard let nobody = getpwnam("nobody") else { throw CaseFailure("no user nobody") }
        let (uid, gid) = (nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        let runtime = "\(work)/xdg-\(kind.rawValue)"
        runtimeDirectory = runtime
        try? RegularFile.makeDirectory(path: runtime, mode: 0o700)
        do {
            try SystemCall.posixBlocking("chown", path: runtime) { chown(runtime, uid, gid) }
        } catch {
            throw CaseFailure("chown \(runtime): \(errorText(error.errno.rawValue))")
        }
        client = try WaylandClientLog(fifo: "\(work)/wev-\(kind.rawValue).fifo")
        // stdbuf: wev block-buffers a pipe.
        let wev = "exec stdbuf -oL wev > \(client.path) 2>/dev/null"
        let command: [String]
        switch kind {
        case .cage:
            command = ["cage", "--", "sh", "-c", wev]
        case .sway:
            let config = "\(work)/sway.conf"
            guard FileManager.default.createFile(atPath: config, contents: Data("exec \(wev)\n".utf8)) else {
                throw CaseFailure("cannot write \(config)")
            }
            _ = try? SystemCall.posixBlocking("chmod", path: config) { chmod(config, 0o644) }
            command = ["sway", "-c", config]
        }
        pid = try spawn(
            "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command,
            environment: [
                "XDG_RUNTIME_DIR=\(runtime)", "HOME=\(runtime)", "WLR_BACKENDS=headless,libinput", "WLR_RENDERER=pixman",
                "WLR_HEADLESS_OUTPUTS=1", "LIBSEAT_BACKEND=seatd",
                // wlroots 0.15 refuses to start with no input device yet: they come later.
                "WLR_LIBINPUT_NO_DEVICES=1",
            ], logPath: logPath)
        let deadline = monotonicMicroseconds() + 120_000_000
        while !client.activated {
            if let code = waitForExit(pid, timeout: 0) {
                throw CaseFailure("\(kind.rawValue) exited with \(code) before its client was activated: \(tail(logPath))")
            }
            if monotonicMicroseconds() >= deadline {
                stop()
                throw CaseFailure("wev was not activated within 120 s: \(tail(logPath)); wev: \(client.recentLines.suffix(5))")
            }
            client.pump(milliseconds: 200)
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
            "/usr/bin/swaymsg", ["-s", "\(runtimeDirectory)/\(socket)", "-r", "-t", "get_inputs"], logPath: "\(work)/swaymsg.log",
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
