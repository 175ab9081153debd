import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import SystemCalls

/// `app-input = "pointer"` against a daemon of its own, read on the real pointer node the
/// daemon makes beside the clone: long presses are right clicks with no left press, a tap
/// is one left click at the touched point, and a kill of the daemon while a drag holds the
/// left button leaves the guard to release it.
struct MouseEmulationCases {
    let passThrough: PassThroughCases

    static let deviceName = "e2e pass-through mouse ELAN Touchscreen"
    static let longPresses = 20

    static let config = """
        [daemon]
        log-level = "debug"

        [[device]]
        match-name = "\(deviceName)"
        pass-through = true
        app-input = "pointer"

        [[device]]
        match-name = "*"
        enabled = false
        """

    static let longPressCase =
        "mouse emulation: 20 long presses are exactly 20 right clicks, each while the finger is down, and no left press"
    static let tapCase = "mouse emulation: a tap is one left click at the touched point"
    static let udevCase = "mouse emulation: udev's input_id calls the pointer a mouse, not a touchscreen"
    static let killCase = "mouse emulation: the daemon killed while a drag holds the left button: the guard releases it"

    private typealias Started = (panel: TouchPanel, daemon: DaemonProcess, subscriber: Subscriber, pointer: String)

    func run(_ harness: Harness) {
        let names = [Self.udevCase, Self.longPressCase, Self.tapCase, Self.killCase]
        guard names.contains(where: harness.wants) else { return }
        var started: Started?
        func start() throws -> Started {
            if let started { return started }
            let (panel, daemon, subscriber, _, _) = try passThrough.start(
                config: Self.config, files: "pass-through-mouse", deviceName: Self.deviceName)
            let new = (
                panel, daemon, subscriber,
                try passThrough.findNode(phys: PointerClone.physPrefix + panel.devnode, what: "pointer of \(panel.devnode)")
            )
            started = new
            return new
        }
        harness.run(Self.udevCase) { try classification(try start()) }
        harness.run(Self.longPressCase) { try longPresses(try start()) }
        var attempt = 0
        harness.run(Self.tapCase) {
            attempt += 1
            try tap(try start(), shift: 0.03 * Double(attempt))
        }
        harness.run(Self.killCase) { try killDuringDrag(try start()) }
        if let started, harness.failures.contains(where: names.contains) {
            say("gestured log: \(tail(started.daemon.logPath, lines: 40))")
        }
        started?.panel.unplug()
        started?.daemon.stop()
    }

    /// `udevadm test-builtin input_id` on the pointer's node: what udev (and so libinput
    /// and the compositor) makes of it.
    private func classification(_ started: Started) throws {
        let node = started.pointer.split(separator: "/").last.map(String.init) ?? started.pointer
        let output = "\(passThrough.work)/pointer-input-id.txt"
        let log = "\(passThrough.work)/pointer-input-id.log"
        let pid = try spawn("/usr/bin/udevadm", ["test-builtin", "input_id", "/sys/class/input/\(node)"], logPath: log, stdoutPath: output)
        try expect(waitForExit(pid, timeout: 30) == 0, "udevadm test-builtin input_id failed: \(tail(log))")
        let properties = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "") + "\n" + tail(log, lines: 40)
        let lines = Set(properties.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        try expect(lines.contains("ID_INPUT_MOUSE=1"), "no ID_INPUT_MOUSE=1 for the pointer: \(properties)")
        for other in ["ID_INPUT_TOUCHSCREEN=1", "ID_INPUT_TABLET=1", "ID_INPUT_TOUCHPAD=1", "ID_INPUT_JOYSTICK=1"] {
            try expect(!lines.contains(other), "\(other) for the pointer: \(properties)")
        }
        say("  mouse emulation: udev's input_id: \(lines.filter { $0.hasPrefix("ID_INPUT") }.sorted().joined(separator: " "))")
    }

    /// How often `button` went down and up in `events`.
    private static func clicks(_ button: UInt16, _ events: [InputEvent]) -> (presses: Int, releases: Int) {
        let values = events.filter { $0.type == EV.key && $0.code == button }.map(\.value)
        return (values.filter { $0 == 1 }.count, values.filter { $0 == 0 }.count)
    }

    /// Twenty touches that rest: each must give its right click on the pointer before the
    /// finger lifts (the driver lifts only once it has read it), and no left press at all.
    private func longPresses(_ started: Started) throws {
        let (panel, _, subscriber, pointerPath) = started
        _ = subscriber.drain(quiet: 0.45)
        let pointer = try EvdevNode(pointerPath)
        for index in 0..<Self.longPresses {
            let spot = Spot(0.2 + 0.03 * Double(index % 10), 0.3 + 0.04 * Double(index / 10))
            try panel.frame([0: spot])
            _ = try subscriber.gestures(until: "long press \(index + 1)'s long-press began") {
                $0.device == panel.name && $0.gesture == .longPress && $0.phase == .began
            }
            try pointer.read(forMilliseconds: 10_000) { _ in Self.clicks(BTN.right, pointer.events).presses > index }
            try expect(
                Self.clicks(BTN.right, pointer.events).presses == index + 1,
                "long press \(index + 1): \(Self.clicks(BTN.right, pointer.events).presses) right presses on the pointer while the finger was down"
            )
            try panel.lift()
            _ = try subscriber.gestures(until: "long press \(index + 1)'s press ended") {
                $0.device == panel.name && $0.gesture == .press && ($0.phase == .ended || $0.phase == .cancelled)
            }
        }
        try pointer.read(forMilliseconds: 500)
        let right = Self.clicks(BTN.right, pointer.events)
        let left = Self.clicks(BTN.left, pointer.events)
        try expect(
            right.presses == Self.longPresses && right.releases == Self.longPresses,
            "BTN_RIGHT pressed \(right.presses) and released \(right.releases) times for \(Self.longPresses) long presses")
        try expect(left.presses == 0 && left.releases == 0, "BTN_LEFT pressed \(left.presses), released \(left.releases) times")
        say("  mouse emulation: \(right.presses) BTN_RIGHT press/release pairs, \(left.presses) BTN_LEFT presses")
    }

    /// One tap: one left click, where the finger touched (the pointer's absolute axes span
    /// the screen; the panel here is not rotated).
    private func tap(_ started: Started, shift: Double) throws {
        let (panel, _, subscriber, pointerPath) = started
        _ = subscriber.drain(quiet: 0.45)
        let pointer = try EvdevNode(pointerPath)
        let spot = Spot(0.3 + shift, 0.6)
        try panel.tap([spot], hold: 60)
        let tap = try subscriber.gestures(until: "the tap's press ended") {
            $0.device == panel.name && $0.gesture == .press && ($0.phase == .ended || $0.phase == .cancelled)
        }
        try requireTapStimulus(tap, meant: 60)
        try expect(tap.contains { $0.gesture == .tap }, "the subscriber got no tap: \(tap.map { "\($0.gesture) \($0.phase)" })")
        try pointer.read(forMilliseconds: 10_000) { _ in Self.clicks(BTN.left, pointer.events).releases >= 1 }
        try pointer.read(forMilliseconds: 300)
        let left = Self.clicks(BTN.left, pointer.events)
        try expect(left.presses == 1 && left.releases == 1, "BTN_LEFT pressed \(left.presses), released \(left.releases) times for one tap")
        try expect(Self.clicks(BTN.right, pointer.events).presses == 0, "a right press for a tap")
        let x = try required(pointer.state.axes[ABS.x], "ABS_X on the pointer")
        let y = try required(pointer.state.axes[ABS.y], "ABS_Y on the pointer")
        let maximum = Double(PointerClone.axisMaximum)
        let tolerance = 0.005 * maximum
        try expect(
            abs(Double(x) - spot.x * maximum) <= tolerance && abs(Double(y) - spot.y * maximum) <= tolerance,
            "clicked at (\(x), \(y)) for a tap at (\(spot.x), \(spot.y)) of the screen: (\(Int(spot.x * maximum)), \(Int(spot.y * maximum)))"
        )
        say("  mouse emulation: a tap at (\(spot.x), \(spot.y)) clicked BTN_LEFT once at ABS (\(x), \(y))")
    }

    /// A drag far beyond the slop holds the left button; the daemon is killed (SIGKILL) with
    /// the finger still down. The pointer must show the button released by a frame written
    /// to it (the guard's release frame, `SYN_REPORT` value 0) before the node vanishes, not
    /// only by the kernel's key release when the device is destroyed (value 1).
    private func killDuringDrag(_ started: Started) throws {
        let (panel, daemon, subscriber, pointerPath) = started
        _ = subscriber.drain(quiet: 0.45)
        let pointer = try EvdevNode(pointerPath)
        try panel.move(from: [Spot(0.2, 0.5)], to: [Spot(0.5, 0.5)], duration: 150, steps: 8)
        try pointer.read(forMilliseconds: 10_000) { $0.keysDown.contains(BTN.left) || $0.keysDown.contains(BTN.right) }
        if Self.clicks(BTN.right, pointer.events).presses > 0 {
            try panel.lift()
            throw StimulusMissed("the drag's first movement came past the long-press duration by kernel time")
        }
        try expect(pointer.state.keysDown.contains(BTN.left), "the drag did not press BTN_LEFT on the pointer in 10 s")
        daemon.signal(SIGKILL)
        try pointer.read(forMilliseconds: 10_000)
        try expect(pointer.gone, "the pointer is still there 10 s after the kill (its guard keeps it until it has released it)")
        try expect(!pointer.state.keysDown.contains(BTN.left), "BTN_LEFT still down on the pointer after the kill")
        let release = try required(
            pointer.events.lastIndex { $0.type == EV.key && $0.code == BTN.left && $0.value == 0 }, "BTN_LEFT release on the pointer")
        let report = try required(
            pointer.events[release...].first { $0.type == EV.syn && $0.code == SYN.report }, "the release's SYN_REPORT")
        try expect(
            report.value == 0, "BTN_LEFT was released only by the kernel removing the device (SYN_REPORT \(report.value)), not by the guard"
        )
        try panel.lift()
    }
}
