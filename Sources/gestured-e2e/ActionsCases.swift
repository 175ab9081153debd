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

/// `gesturectl actions` in the VM: its `keys` actions create a virtual keyboard
/// through /dev/uinput and type on it; the key events are read back from that keyboard's
/// node with libevdev, as a compositor would read them.
struct ActionsCases {
    let gesturectl: String
    let daemon: DaemonProcess
    let subscriber: Subscriber
    let panel: TouchPanel
    let work: String

    static let keys = "actions: a tap types KEY_LEFTCTRL+KEY_R on gesturectl's uinput keyboard (read back with libevdev)"

    func run(_ harness: Harness) {
        harness.run(Self.keys) { try keys() }
    }

    private func keys() throws {
        let file = "\(work)/actions.toml"
        let log = "\(work)/gesturectl-actions.log"
        let actions = """
            [[action]]
            gesture = "tap"
            device = "\(panel.name)"
            keys = ["KEY_LEFTCTRL+KEY_R"]
            """
        guard let handle = fopen(file, "w"), fputs(actions, handle) >= 0, fclose(handle) == 0 else {
            throw CaseFailure("cannot write \(file): \(errorText(errno))")
        }
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
