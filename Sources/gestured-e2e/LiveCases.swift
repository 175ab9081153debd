import EvdevInput
import GestureClient
import GestureCore
import GestureTestSupport
import Glibc

/// Waits for the daemon to announce `name` (`phase` added or removed).
func awaitDevice(_ subscriber: Subscriber, _ name: String, _ phase: DevicePhase, timeout: Double = 15) throws(CaseFailure) {
    try subscriber.next("device \(phase) \"\(name)\"", timeout: timeout) { received in
        if case .device(let device)? = received.message { return device.device.name == name && device.phase == phase }
        return false
    }
}

/// The process state letter from /proc/PID/stat ("T" when stopped).
func processState(_ pid: pid_t) -> Character? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [UInt8](repeating: 0, count: 512)
    let n = fread(&buffer, 1, buffer.count, file)
    guard n > 0 else { return nil }
    let line = String(decoding: buffer[..<n], as: UTF8.self)
    guard let close = line.lastIndex(of: ")") else { return nil }
    return line[line.index(close, offsetBy: 2)...].first
}

/// Hot-plug, several devices, grab and SYN_DROPPED: the cases that need the live daemon's
/// device handling rather than the engine.
struct LiveCases {
    let daemon: DaemonProcess
    let subscriber: Subscriber
    let elanDescription: String

    /// The hot-plug cases' names, each starting with `label`.
    static func hotPlugCaseNames(_ label: String) -> (added: String, removed: String) {
        (
            "\(label): a device created after start is announced and used",
            "\(label): removing a device mid-drag cancels the drag and is announced"
        )
    }

    /// A device created after start is announced and used; unplugged mid-drag, the drag is
    /// cancelled and the device announced removed. `label` starts the cases' names and
    /// tells the daemon runs apart (inotify, udev).
    func hotPlug(_ harness: Harness, label: String = "hot-plug", deviceName: String = "e2e hotplug ELAN Touchscreen") {
        let names = LiveCases.hotPlugCaseNames(label)
        var panel: TouchPanel?
        harness.run(names.added) {
            let created = try TouchPanel(descriptionFile: elanDescription, name: deviceName)
            panel = created
            try awaitDevice(subscriber, created.name, .added)
            try created.tap([Spot(0.7, 0.2)])
            let tap = try subscriber.gestures(until: "tap from the new device") { $0.gesture == .tap }.last!
            try expect(tap.device == created.name, "tap from \(tap.device)")
        }
        harness.run(names.removed) {
            guard let created = panel else { throw CaseFailure("no hot-plugged device (previous case failed)") }
            _ = subscriber.drain(quiet: 0.4)
            try created.move(from: [Spot(0.2, 0.8)], to: [Spot(0.5, 0.8)], duration: 300, steps: 15)
            try subscriber.gestures(until: "drag began") { $0.gesture == .drag && $0.phase == .began && $0.device == created.name }
            created.unplug()
            panel = nil
            var cancelled = false
            var removed = false
            var seen: [String] = []
            try subscriber.next("drag cancelled and device removed", timeout: 15) { received in
                switch received.message {
                case .gesture(let g)? where g.device == created.name:
                    seen.append("\(g.gesture) \(g.phase)")
                    if g.gesture == .drag && g.phase == .cancelled { cancelled = true }
                    if g.gesture == .drag && g.phase == .ended { seen.append("(drag ended instead of cancelled)") }
                case .device(let d)? where d.device.name == created.name && d.phase == .removed:
                    removed = true
                default: break
                }
                return cancelled && removed
            }
            try expect(!seen.contains("(drag ended instead of cancelled)"), "the drag ended rather than cancelled: \(seen)")
        }
    }

    func twoDevices(_ harness: Harness, _ a: TouchPanel, _ b: TouchPanel) {
        harness.run("two devices at once keep their gestures apart [\(a.name) + \(b.name)]") {
            _ = subscriber.drain(quiet: 0.45)
            // a drags down, b drags left, frame by frame interleaved.
            let steps = 20
            try a.frame([0: Spot(0.2, 0.2)])
            try b.frame([0: Spot(0.8, 0.8)])
            for step in 1...steps {
                pause(milliseconds: 20)
                let t = Double(step) / Double(steps)
                try a.frame([0: Spot(0.2, 0.2 + 0.5 * t)])
                try b.frame([0: Spot(0.8 - 0.5 * t, 0.8)])
            }
            pause(milliseconds: 200)
            try a.lift()
            try b.lift()
            var ends: [String: GestureMessage] = [:]
            var all: [GestureMessage] = []
            try subscriber.next("drag ended on both devices", timeout: 10) { received in
                guard let g = received.gesture else { return false }
                all.append(g)
                if g.gesture == .drag && g.phase == .ended { ends[g.device] = g }
                return ends.count == 2
            }
            guard let endA = ends[a.name], let endB = ends[b.name] else { throw CaseFailure("drag ended from \(ends.keys.sorted())") }
            try expect(endA.id != endB.id, "both drags have id \(endA.id)")
            try expect(
                all.allSatisfy { $0.fingers == 1 },
                "a gesture with \(all.map(\.fingers).max() ?? 0) fingers: the devices' touches were merged")
            let ta = endA.drag?.translation ?? Point(x: 9, y: 9)
            let tb = endB.drag?.translation ?? Point(x: 9, y: 9)
            try expect(
                abs(ta.x) < locationTolerance && abs(ta.y - 0.5) < locationTolerance,
                "\(a.name) translation \(describe(ta)), expected (0, 0.5)")
            try expect(
                abs(tb.x + 0.5) < locationTolerance && abs(tb.y) < locationTolerance,
                "\(b.name) translation \(describe(tb)), expected (-0.5, 0)")
            let ids = Dictionary(grouping: all.filter { $0.gesture == .drag }, by: \.id).mapValues { Set($0.map(\.device)) }
            try expect(ids.values.allSatisfy { $0.count == 1 }, "a drag id shared by two devices")
        }
    }

    func grab(_ harness: Harness, control: TouchPanel) {
        harness.run("grab: a second reader of a grabbed node sees nothing while the daemon runs") {
            // Control: on a device without grab, a second reader does see the events.
            let controlReader = try openReader(control.devnode)
            _ = subscriber.drain(quiet: 0.45)
            try control.tap([Spot(0.1, 0.9)])
            try subscriber.gestures(until: "tap on the ungrabbed device") { $0.gesture == .tap && $0.device == control.name }
            let controlEvents = try readCount(controlReader)
            try expect(controlEvents > 0, "the second reader saw nothing of the ungrabbed \(control.name): the check itself is broken")

            let grabbed = try TouchPanel(descriptionFile: elanDescription, name: "e2e grab ELAN Touchscreen")
            try awaitDevice(subscriber, grabbed.name, .added)
            let reader = try openReader(grabbed.devnode)
            try grabbed.tap([Spot(0.1, 0.9)])
            try subscriber.gestures(until: "tap on the grabbed device") { $0.gesture == .tap && $0.device == grabbed.name }
            let seen = try readCount(reader)
            try expect(seen == 0, "the second reader saw \(seen) events of the grabbed device")
            grabbed.unplug()
            try awaitDevice(subscriber, grabbed.name, .removed)
        }
    }

    func synDropped(_ harness: Harness, _ panel: TouchPanel) {
        harness.run("SYN_DROPPED: overflow while stopped cancels the drag, then classification goes on [\(panel.name)]") {
            _ = subscriber.drain(quiet: 0.45)
            try panel.move(from: [Spot(0.3, 0.3)], to: [Spot(0.5, 0.3)], duration: 200, steps: 10)
            let began = try subscriber.gestures(until: "drag began") {
                $0.gesture == .drag && $0.phase == .began && $0.device == panel.name
            }.last!
            try freezeDaemon()
            defer { daemon.signal(SIGCONT) }
            // The kernel's per-client buffer holds a few hundred to a few thousand events
            // (8 packets of the device's estimated size, power of two); 4000 frames of 3
            // events overflow it whatever the estimate.
            for step in 0..<4000 {
                try panel.frame([0: Spot(0.5 + 0.1 * Double(step % 50) / 50, 0.3 + 0.1 * Double(step % 7) / 7)])
            }
            daemon.signal(SIGCONT)
            let outcome = try subscriber.gestures(until: "drag cancelled after the overflow", timeout: 30) {
                $0.device == panel.name && $0.id == began.id && $0.phase != .changed
            }
            try expect(outcome.last!.phase == .cancelled, "drag \(outcome.last!.phase) after SYN_DROPPED, expected cancelled")
            try panel.lift()
            _ = subscriber.drain(quiet: 0.45)
            try panel.tap([Spot(0.6, 0.7)])
            let tap = try subscriber.gestures(until: "a tap after the resync", timeout: 15) {
                $0.device == panel.name && $0.gesture == .tap
            }.last!
            try expect(tap.count == 1 && tap.fingers == 1, "tap after resync: count \(tap.count ?? -1) fingers \(tap.fingers)")
            try expect(daemon.isRunning, "the daemon exited")
        }
    }

    /// Stops the daemon (SIGSTOP) and waits until the kernel says it is stopped.
    private func freezeDaemon() throws(CaseFailure) {
        daemon.signal(SIGSTOP)
        var waited = 0
        while processState(daemon.pid) != "T" && waited < 500 {
            pause(milliseconds: 10)
            waited += 1
        }
        try expect(processState(daemon.pid) == "T", "the daemon did not stop on SIGSTOP")
    }

    /// The loop running late: the daemon is stopped while a finger is down, the finger lifts
    /// 200 ms after touch-down, and the daemon resumes only after the long-press deadline
    /// (500 ms) has passed. The lift is in the kernel's queue, stamped before the deadline,
    /// when the timer fires: it must be read first, so this is a tap and never a long press.
    func lateLoop(_ harness: Harness, _ panel: TouchPanel) {
        harness.run("a lift queued before the long-press deadline makes a tap when the daemon runs late [\(panel.name)]") {
            _ = subscriber.drain(quiet: 0.45)
            let spot = Spot(0.4, 0.6)
            try panel.frame([0: spot])
            let press = try subscriber.gestures(until: "press began") {
                $0.device == panel.name && $0.gesture == .press && $0.phase == .began
            }.last!
            try freezeDaemon()
            defer { daemon.signal(SIGCONT) }
            pause(milliseconds: 200)
            try panel.lift()
            pause(milliseconds: 600)
            daemon.signal(SIGCONT)
            let seen = try subscriber.gestures(until: "the press ended") {
                $0.device == panel.name && $0.gesture == .press && $0.phase != .began
            }
            let heldFor = seen.last.map { elapsed(press.time, $0.time) } ?? -Int64(press.time.microseconds)
            if heldFor >= longPressMinimum - stimulusMargin {
                throw StimulusMissed("the lift was stamped \(heldFor / 1000) ms after touch-down (meant 200 ms)")
            }
            let kinds = seen.map { "\($0.gesture) \($0.phase)" }
            try expect(!seen.contains { $0.gesture == .longPress }, "a long press despite the lift at \(heldFor / 1000) ms: \(kinds)")
            try expect(seen.contains { $0.gesture == .tap && $0.count == 1 }, "no tap for a lift at \(heldFor / 1000) ms: \(kinds)")
        }
    }

    private func openReader(_ path: String) throws(CaseFailure) -> EvdevDevice {
        do {
            return try EvdevDevice(path: path)
        } catch {
            throw CaseFailure("second reader on \(path): \(error)")
        }
    }

    private func readCount(_ reader: EvdevDevice) throws(CaseFailure) -> Int {
        var count = 0
        do {
            _ = try reader.readAvailable { _ in count += 1 }
        } catch {
            throw CaseFailure("reading \(reader.path): \(error)")
        }
        return count
    }
}
