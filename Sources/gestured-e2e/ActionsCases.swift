import EvdevInput
import GestureClient
import GestureCore
import GestureTestSupport
import Glibc
import SystemCalls

/// Waits until the file at `path` has a line containing `text` (bounded); returns it.
func awaitLogLine(_ path: String, containing text: String, timeout: Double = 15) throws(CaseFailure) -> String {
    let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
    while true {
        if let line = tail(path, lines: 10_000).split(separator: "\n").first(where: { $0.contains(text) }) {
            return String(line)
        }
        if monotonicMicroseconds() >= deadline {
            throw CaseFailure("no \"\(text)\" in \(path) within \(Int(timeout)) s: \(tail(path))")
        }
        pause(milliseconds: 20)
    }
}

/// Writes `text` to `file` (created 0644 under the usual umask: the kiosk user reads it).
func writeFile(_ text: String, to file: String) throws(CaseFailure) {
    guard let handle = fopen(file, "w"), fputs(text, handle) >= 0, fclose(handle) == 0 else {
        throw CaseFailure("cannot write \(file): \(errorText(errno))")
    }
}

/// `gesturectl actions` in the VM (no compositor: the kiosk tier proves the `wayland`
/// keyboard under cage and sway). With `keyboard = "uinput"` its `keys` actions create a
/// virtual keyboard through /dev/uinput and type on it; the key events are read back from
/// that keyboard's node with libevdev, as a compositor would read them. With the default
/// `wayland` keyboard and no Wayland display it says so at start, naming the variables,
/// and its `run` actions still run.
struct ActionsCases {
    let gesturectl: String
    let daemon: DaemonProcess
    let subscriber: Subscriber
    let panel: TouchPanel
    let work: String

    static let keys =
        "actions: with keyboard = \"uinput\" a tap types KEY_LEFTCTRL+KEY_R on gesturectl's uinput keyboard (read back with libevdev)"
    static let noDisplay =
        "actions: the Wayland keyboard without a Wayland display says so at start (WAYLAND_DISPLAY, XDG_RUNTIME_DIR); a run action on the same tap still runs"

    func run(_ harness: Harness) {
        harness.run(Self.keys) { try keys() }
        harness.run(Self.noDisplay) { try withoutDisplay() }
    }

    private func withoutDisplay() throws {
        let file = "\(work)/actions-wayland.toml"
        let log = "\(work)/gesturectl-actions-wayland.log"
        let marker = "\(work)/actions-run-marker"
        RegularFile.remove(path: marker)
        try writeFile(
            """
            [[action]]
            gesture = "tap"
            device = "\(panel.name)"
            keys = ["KEY_LEFTCTRL+KEY_R"]

            [[action]]
            gesture = "tap"
            device = "\(panel.name)"
            run = ["sh", "-c", "echo \\"$GESTURED_GESTURE\\" > \(marker)"]
            """, to: file)
        let pid = try spawn(
            "/usr/bin/env",
            ["-u", "WAYLAND_DISPLAY", "-u", "XDG_RUNTIME_DIR", gesturectl, "actions", "--config", file, "--socket", daemon.socketPath],
            logPath: log)
        defer {
            Subprocess.send(SIGTERM, to: pid)
            _ = waitForExit(pid, timeout: 5)
        }
        let said = try awaitLogLine(log, containing: "no display for the 'keys' actions")
        for text in ["WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "line 1", "the 'run' actions work"] {
            try expect(said.contains(text), "the message at start does not name \(text): \(said)")
        }
        _ = try awaitLogLine(log, containing: "connected to gestured")
        _ = subscriber.drain(quiet: 0.45)
        try panel.tap([Spot(0.5, 0.5)], hold: 60)
        _ = try subscriber.gestures(until: "the tap", timeout: 10) { $0.device == panel.name && $0.gesture == .tap }
        _ = try awaitLogLine(log, containing: "not typed: no keyboard")
        _ = try awaitLogLine(log, containing: "exited with status 0")
        try expect(tail(marker).contains("tap"), "the run action wrote \(tail(marker)) to \(marker)")
    }

    private func keys() throws {
        let file = "\(work)/actions.toml"
        let log = "\(work)/gesturectl-actions.log"
        try writeFile(
            """
            keyboard = "uinput"

            [[action]]
            gesture = "tap"
            device = "\(panel.name)"
            keys = ["KEY_LEFTCTRL+KEY_R"]
            """, to: file)
        let pid = try spawn(gesturectl, ["actions", "--config", file, "--socket", daemon.socketPath], logPath: log)
        defer {
            Subprocess.send(SIGTERM, to: pid)
            _ = waitForExit(pid, timeout: 5)
        }
        let ready = try awaitLogLine(log, containing: "virtual keyboard /dev/input/")
        guard let devnode = ready.split(separator: " ").first(where: { $0.hasPrefix("/dev/input/event") }).map(String.init) else {
            throw CaseFailure("no device node in \"\(ready)\"")
        }
        _ = try awaitLogLine(log, containing: "connected to gestured")
        let keyboard: EvdevDevice
        do {
            keyboard = try EvdevDevice(path: devnode)
        } catch {
            throw CaseFailure("cannot open the virtual keyboard \(devnode): \(error)")
        }
        try expect(keyboard.description.name == VirtualKeyboard.name, "\(devnode) is \"\(keyboard.description.name)\"")
        _ = subscriber.drain(quiet: 0.45)  // no earlier tap may join this one
        try panel.tap([Spot(0.5, 0.5)], hold: 60)
        _ = try subscriber.gestures(until: "the tap", timeout: 10) { $0.device == panel.name && $0.gesture == .tap }
        _ = try awaitLogLine(log, containing: "typed KEY_LEFTCTRL+KEY_R")
        var keysSeen: [[Int32]] = []
        let deadline = monotonicMicroseconds() + 5_000_000
        while keysSeen.count < 4, monotonicMicroseconds() < deadline {
            var descriptors = [pollfd(fd: keyboard.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0)]
            _ = try? Polling.poll(&descriptors, timeoutMilliseconds: 100)
            do {
                _ = try keyboard.readAvailable { event in
                    if event.type == EV.key { keysSeen.append([Int32(event.code), event.value]) }
                }
            } catch {
                throw CaseFailure("reading \(devnode): \(error)")
            }
        }
        let ctrl = Int32(KeyNames.code("KEY_LEFTCTRL") ?? 0)
        let r = Int32(KeyNames.code("KEY_R") ?? 0)
        try expect(
            keysSeen == [[ctrl, 1], [r, 1], [r, 0], [ctrl, 0]],
            "key events (code, value) \(keysSeen), expected ctrl down, R down, R up, ctrl up")
    }
}
