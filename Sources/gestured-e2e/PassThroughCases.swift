import EvdevInput
import Foundation
import GestureClient
import GestureCore
import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage

/// `[[device]] pass-through` against a daemon of its own: a touchscreen passed
/// through with a reserved top edge, a reader on its clone and one on the original node.
/// Middle touches must reach the clone frame for frame with the same coordinates and slots,
/// an edge swipe must reach clients and never the clone, the original must stay grabbed, an
/// unplug must remove the clone and a stop must leave no contact down on it. Prints the
/// original → clone delay next to a bare forwarder's (`BENCH` lines, never a verdict).
struct PassThroughCases {
    let gestured: String
    let work: String
    let elanDescription: String
    /// Frames of each latency run, `interval` ms apart.
    let frames: Int
    let interval: Double
    /// The passed-through panel's name (the configuration passes `e2e pass-through *`).
    var panelName = Self.deviceName
    /// Which panel, appended to the reserved-region cases' names in brackets when not empty.
    var label = ""

    static let deviceName = "e2e pass-through ELAN Touchscreen"
    /// The reserved region: the top tenth of the screen.
    static let edgeHeight = 0.1

    /// The daemon's configuration for the devices `matchName` matches; `passThrough: false`
    /// is what the reload cases turn to. The kiosk tier uses it too.
    /// `deviceKeys`: more lines of the `[[device]]` table (e.g. `app-fingers = 1`).
    static func config(passThrough: Bool = true, matchName: String = "e2e pass-through *", deviceKeys: [String] = []) -> String {
        """
        [daemon]
        log-level = "info"

        [[device]]
        match-name = "\(matchName)"
        pass-through = \(passThrough)
        \(deviceKeys.joined(separator: "\n"))

        [[device.region]]
        name = "exit-edge"
        rect = [0.0, 0.0, 1.0, \(edgeHeight)]
        enabled = ["swipe"]
        reserve = true

        [[device]]
        match-name = "*"
        enabled = false
        """
    }

    func run(_ harness: Harness) {
        if harness.wants("pass-through") { reservedRegion(harness) }
        wakeSwallow(harness)
        screenOrientation(harness)
    }

    /// `name` with the label, if any.
    private func named(_ name: String) -> String { label.isEmpty ? name : "\(name) [\(label)]" }

    /// The cases of the reserved top edge, against one daemon.
    func reservedRegion(_ harness: Harness) {
        var setup: (panel: TouchPanel, daemon: DaemonProcess, subscriber: Subscriber, clone: String, configPath: String)?
        harness.run(
            named(
                "pass-through: the device is grabbed and cloned (capabilities, ranges, resolutions, properties); gestured devices pairs them"
            )
        ) {
            setup = try start(deviceName: panelName)
            guard let setup else { return }
            let original = try EvdevNode.description(setup.panel.devnode)
            let clone = try EvdevNode.description(setup.clone)
            try expect(clone.name == original.name, "clone named \"\(clone.name)\"")
            try expect(clone.phys == PassThroughClone.phys(cloning: setup.panel.devnode), "clone's phys \(clone.phys ?? "none")")
            try expect(clone.codes == original.codes, "codes differ: \(clone.codes) vs \(original.codes)")
            try expect(clone.properties == original.properties, "properties \(clone.properties) vs \(original.properties)")
            try expect(
                [clone.bus, clone.vendor, clone.product, clone.version] == [
                    original.bus, original.vendor, original.product, original.version,
                ],
                "ids differ")
            for (code, info) in original.absInfo {
                let copy = clone.absInfo[code]
                try expect(
                    copy?.minimum == info.minimum && copy?.maximum == info.maximum && copy?.resolution == info.resolution,
                    "axis \(code): \(String(describing: copy)) vs \(info)")
            }
            let listing = try devicesListing(gestured: gestured, config: setup.configPath, work: work)
            try expect(listing.contains("pass-through: clone \(setup.clone)"), "gestured devices does not name the clone: \(listing)")
            try expect(listing.contains("clone of: \(setup.panel.devnode)"), "gestured devices does not pair the clone: \(listing)")
        }
        guard let setup else { return }
        let (panel, daemon, subscriber, clonePath, configPath) = setup
        let originalReader: EvdevDevice
        do {
            originalReader = try EvdevDevice(path: panel.devnode)
        } catch {
            harness.fail(named("pass-through: a second reader of the original node"), "\(error)")
            return
        }

        harness.run(named("pass-through: middle taps and drags reach the clone with identical coordinates and slots (+ latency figure)")) {
            let reader = try NodeReader(path: clonePath)
            var writer = TouchFrameWriter(panel.description)
            var written: [InputEvent] = []
            var writeTimes: [UInt64] = []
            func play(_ fingers: [Int: Spot]) throws {
                let events = writer.frame(fingers)
                written += events
                writeTimes.append(monotonicMicroseconds())
                try panel.write(events)
                try reader.read(until: monotonicMicroseconds() + UInt64(interval * 1000), alongside: subscriber)
            }
            // A tap, a two-finger drag, fingers lifting one by one, then a long one-finger
            // drag for the latency figure.
            try play([0: Spot(0.5, 0.5)])
            try play([:])
            for step in 0...30 {
                let t = Double(step) / 30
                try play([0: Spot(0.3 + 0.3 * t, 0.5 + 0.1 * t), 1: Spot(0.7, 0.5 + 0.3 * t)])
            }
            try play([1: Spot(0.7, 0.8)])
            try play([:])
            let latencyStart = writeTimes.count
            for step in 0..<frames {
                let angle = Double(step) / 40 * 2 * Double.pi
                try play([0: Spot(0.5 + 0.2 * cos(angle), 0.55 + 0.2 * sin(angle))])
            }
            try play([:])
            var expected = EvdevReader()
            expected.read(written)
            // At least 500 ms more (a frame too many fails too), and on until the clone has as
            // many frames as were written, 10 s at most: how far behind the daemon runs under
            // emulation on a busy host is no verdict.
            var received = EvdevReader()
            let settled = monotonicMicroseconds() + 500_000
            let deadline = monotonicMicroseconds() + 10_000_000
            repeat {
                try reader.read(until: monotonicMicroseconds() + 50_000, alongside: subscriber)
                received = EvdevReader()
                received.read(reader.events)
            } while (received.frames.count < expected.frames.count || monotonicMicroseconds() < settled)
                && monotonicMicroseconds() < deadline
            try expect(
                received.frames.count == expected.frames.count,
                "\(received.frames.count) frames on the clone for \(expected.frames.count) written")
            for (index, (got, want)) in zip(received.frames, expected.frames).enumerated() where got != want {
                throw CaseFailure(
                    "frame \(index) differs: clone \(got.slots) \(got.axes) keys \(got.keysDown), device \(want.slots) \(want.axes) keys \(want.keysDown)"
                )
            }
            let reports = reader.events.filter { $0.type == EV.syn && $0.code == SYN.report }.map(\.time.microseconds)
            let delays = zip(writeTimes[latencyStart...], reports[latencyStart...]).map { Int64($1) - Int64($0) }
            say(
                "BENCH pass-through write → clone (kernel timestamp), \(frames) frames every \(interval) ms: \(LatencyFigures(samples: delays))"
            )
            let seen = try readCount(originalReader)
            try expect(seen == 0, "a reader of the grabbed original saw \(seen) events")
        }

        harness.run(named("pass-through: an edge swipe from the reserved region reaches clients as a swipe and never the clone")) {
            _ = subscriber.drain(quiet: 0.3)
            let reader = try NodeReader(path: clonePath)
            // Finger 1 rests in the middle (it passes); finger 0 swipes down from the edge.
            try panel.frame([1: Spot(0.2, 0.6)])
            try reader.read(until: monotonicMicroseconds() + 50_000, alongside: subscriber)
            try panel.frame([0: Spot(0.5, 0.03), 1: Spot(0.2, 0.6)])
            for step in 1...8 {
                pause(milliseconds: 12)
                try panel.frame([0: Spot(0.5, 0.03 + 0.07 * Double(step)), 1: Spot(0.2, 0.6)])
            }
            try panel.frame([1: Spot(0.2, 0.6)])
            try panel.frame([:])
            let swipe = try subscriber.gestures(until: "a swipe from the exit edge") { $0.gesture == .swipe && $0.phase == .ended }.last!
            try expect(swipe.region == "exit-edge", "the swipe came from region \(swipe.region ?? "null")")
            try reader.read(until: monotonicMicroseconds() + 300_000, alongside: subscriber)
            var received = EvdevReader()
            received.read(reader.events)
            let edgeLimit =
                panel.description.absInfo[ABS.mtPositionY].map { $0.minimum + Int32(Double($0.maximum - $0.minimum) * Self.edgeHeight) }
                ?? 0
            try expect(!received.frames.isEmpty, "the resting finger never reached the clone")
            for frame in received.frames {
                try expect(frame.slots[0] == nil, "the reserved touch appeared on the clone: \(frame.slots)")
                try expect(frame.slots.count <= 1, "two touches on the clone: \(frame.slots)")
            }
            let leaked = reader.events.filter {
                ($0.code == ABS.mtPositionY || $0.code == ABS.y) && $0.type == EV.abs && $0.value < edgeLimit
            }
            try expect(leaked.isEmpty, "positions inside the reserved edge reached the clone: \(leaked.map(\.value))")
            try expect(received.frames.last?.slots.isEmpty == true, "a contact left down on the clone")
        }

        harness.run(named("pass-through: the bare forwarder's write → clone delay, for comparison")) {
            let source = try TouchPanel(descriptionFile: elanDescription, name: "e2e forwarder source")
            let forwarder = try BareForwarder(source: source.devnode)
            defer { forwarder.stop() }
            let reader = try NodeReader(path: forwarder.clonePath)
            var writeTimes: [UInt64] = []
            for step in 0...frames {
                let angle = Double(step) / 40 * 2 * Double.pi
                writeTimes.append(monotonicMicroseconds())
                try source.frame(step == frames ? [:] : [0: Spot(0.5 + 0.2 * cos(angle), 0.55 + 0.2 * sin(angle))])
                try reader.read(until: monotonicMicroseconds() + UInt64(interval * 1000), alongside: subscriber)
            }
            try reader.read(until: monotonicMicroseconds() + 500_000, alongside: subscriber)
            let reports = reader.events.filter { $0.type == EV.syn && $0.code == SYN.report }.map(\.time.microseconds)
            try expect(reports.count == writeTimes.count, "\(reports.count) frames forwarded of \(writeTimes.count)")
            let delays = zip(writeTimes, reports).map { Int64($1) - Int64($0) }
            say(
                "BENCH bare forwarder write → clone (kernel timestamp), \(frames) frames every \(interval) ms: \(LatencyFigures(samples: delays))"
            )
        }

        harness.run(named("pass-through: unplugging a passed-through device removes its clone")) {
            let second = try TouchPanel(descriptionFile: elanDescription, name: "e2e pass-through second")
            try awaitDevice(subscriber, second.name, .added)
            let clone = try findClone(of: second.devnode)
            second.unplug()
            try awaitDevice(subscriber, second.name, .removed)
            let deadline = monotonicMicroseconds() + 10_000_000
            while RegularFile.anythingExists(path: clone) {
                try expect(monotonicMicroseconds() < deadline, "\(clone) still exists 10 s after its original was unplugged")
                pause(milliseconds: 50)
            }
        }

        harness.run(named("pass-through: a reload turning pass-through off lifts the clone's touches, removes it and ungrabs the device")) {
            try reloadWithFingerDown(
                clone: clonePath, config: Self.config(passThrough: false), configPath: configPath, daemon: daemon
            ) { try panel.frame([0: Spot(0.5, 0.5)]) }
            // Ungrabbed: a reader of the original now sees the finger lift.
            let original = try EvdevNode(panel.devnode)
            try panel.lift()
            try original.read(forMilliseconds: 300)
            try expect(original.state.frames.count > 0, "the original is still grabbed after the reload")
            try writeConfig(Self.config(), to: configPath)
            daemon.signal(SIGHUP)
        }

        harness.run(named("pass-through: SIGTERM with a finger down leaves no contact down on the clone")) {
            // A new clone when the reload case turned pass-through off and on again.
            let reader = try EvdevNode(try findClone(of: panel.devnode))
            try panel.frame([0: Spot(0.5, 0.5)])
            // Until it is there: the daemon's delay under emulation on a busy host is no verdict.
            try reader.read(forMilliseconds: 10_000) { $0.slots.count == 1 }
            try expect(reader.state.slots.count == 1, "the finger did not reach the clone in 10 s: \(reader.state.slots)")
            // Read on while the daemon stops, as a compositor would: the kernel discards a
            // vanished device's unread events.
            daemon.signal(SIGTERM)
            try reader.read(forMilliseconds: 10_000)
            try expect(reader.gone, "the clone is still there 10 s after SIGTERM")
            let status = daemon.stop()
            try expect(status == 0, "gestured exited with \(status): \(tail(daemon.logPath))")
            try expect(
                reader.state.slots.isEmpty && reader.state.keysDown.isEmpty,
                "left on the clone: \(reader.state.slots), keys \(reader.state.keysDown)")
            try panel.lift()
        }
        panel.unplug()
        daemon.stop()
    }

    static let wakeDeviceName = "e2e pass-through wake ELAN Touchscreen"
    /// The wake-swallow daemon's `[daemon] idle-timeout`, in seconds: the shortest that is
    /// still far longer than the driver's gap between two taps.
    static let idleTimeout = 1.0

    /// A daemon of its own for `wake-swallow` (the reserved-region daemon has no idle timeout:
    /// its cases would lose their first touch after every pause). `trace` logs the filter's
    /// decisions ("idle, the next touch is the wake touch"), shown when the case fails.
    /// The kiosk tier uses it too, for its own devices.
    static func wakeConfig(matchName: String = wakeDeviceName) -> String {
        """
        [daemon]
        log-level = "trace"
        idle-timeout = \(idleTimeout)

        [[device]]
        match-name = "\(matchName)"
        pass-through = true
        wake-swallow = true

        [[device]]
        match-name = "*"
        enabled = false
        """
    }

    /// `wake-swallow` through the whole chain in the daemon: its idle timer (`activity`
    /// `idle` on the socket) → `DaemonChange.wentIdle` (`Daemon.observe`) → `LiveDevices` → the device's pass-through
    /// filter. After the idle line a tap in the middle reaches clients as a tap and never
    /// the clone; the tap after it reaches the clone frame for frame as written.
    private func wakeSwallow(_ harness: Harness) {
        let name =
            "pass-through: wake-swallow: after the idle line the first tap reaches clients, not the clone; the next one reaches the clone unchanged"
        guard harness.wants(name) else { return }
        var started: (panel: TouchPanel, daemon: DaemonProcess, subscriber: Subscriber, clone: String, configPath: String)?
        var attempt = 0
        harness.run(name) {
            if started == nil {
                started = try start(config: Self.wakeConfig(), files: "pass-through-wake", deviceName: Self.wakeDeviceName)
            }
            guard let started else { return }
            let (panel, daemon, subscriber, clonePath, _) = started
            attempt += 1
            // Told at once when the daemon is idle already, else when the timeout runs out;
            // on a retry, after the previous attempt's touches.
            try subscriber.next("the idle line", timeout: 10 + Self.idleTimeout) { activityPhase($0) == .idle }
            // Opened now: every event the clone gets from here on is one of these two taps.
            let reader = try NodeReader(path: clonePath)
            var writer = TouchFrameWriter(panel.description)
            // Each attempt taps elsewhere: the kernel drops values a node repeats.
            let shift = 0.05 * Double(attempt)
            func tap(_ spot: Spot) throws -> [InputEvent] {
                let down = writer.frame([0: spot])
                try panel.write(down)
                pause(milliseconds: 60)
                let up = writer.frame([:])
                try panel.write(up)
                return down + up
            }
            _ = try tap(Spot(0.5, 0.4 + shift))
            let wake = try touchSequence(subscriber, "the wake tap's press ended")
            let second = try tap(Spot(0.3 + shift, 0.6))
            let passed = try touchSequence(subscriber, "the second tap's press ended")
            let wakeGestures = wake.compactMap(\.gesture)
            let passedGestures = passed.compactMap(\.gesture)
            try requireTapStimulus(wakeGestures, meant: 60)
            try requireTapStimulus(passedGestures, meant: 60)

            try expect(
                wake.compactMap(activityPhase) == [.active] && activityPhase(wake[0]) == .active,
                "the wake tap's lines do not begin with the one active line: \(wake.map(summary))")
            if passed.contains(where: { activityPhase($0) == .idle }) {
                let gap = try elapsed(
                    required(wakeGestures.last, "the wake tap's press").time,
                    required(passedGestures.first, "the second tap's press").time)
                if gap >= Int64(Self.idleTimeout * 1_000_000) - stimulusMargin {
                    throw StimulusMissed("the second tap came \(gap / 1000) ms after the first by kernel time, past the idle timeout")
                }
                throw CaseFailure("idle between two taps \(gap / 1000) ms apart: \(passed.map(summary))")
            }
            try expect(passed.compactMap(activityPhase).isEmpty, "activity lines around the second tap: \(passed.map(summary))")
            try expect(wakeGestures.contains { $0.gesture == .tap }, "no tap for the wake touch: \(wake.map(summary))")
            try expect(passedGestures.contains { $0.gesture == .tap }, "no tap for the second touch: \(passed.map(summary))")

            // The clone: read until it shows the second tap's lift (kernel order: a leaked
            // wake tap would come first), then compare frame for frame.
            var expected = EvdevReader()
            expected.read(second)
            var received = EvdevReader()
            let deadline = monotonicMicroseconds() + 10_000_000
            while received.frames.last != expected.frames.last && monotonicMicroseconds() < deadline {
                try reader.read(until: monotonicMicroseconds() + 50_000, alongside: subscriber)
                received = EvdevReader()
                received.read(reader.events)
            }
            func frames(_ reader: EvdevReader) -> String {
                reader.frames.map { "\($0.slots) \($0.axes) keys \($0.keysDown)" }.joined(separator: "; ")
            }
            try expect(
                received.frames == expected.frames,
                "the clone showed [\(frames(received))] for the second tap's [\(frames(expected))]")
            try expect(daemon.isRunning, "gestured exited with \(daemon.exited ?? -1)")
        }
        if harness.failures.contains(name), let started { say("gestured log: \(tail(started.daemon.logPath, lines: 20))") }
        started?.panel.unplug()
        started?.daemon.stop()
    }

    /// Every line up to the end of one touch sequence (the `press` bracketing it ends).
    private func touchSequence(_ subscriber: Subscriber, _ what: String) throws(CaseFailure) -> [Received] {
        var lines: [Received] = []
        try subscriber.next(what) { received in
            lines.append(received)
            guard let gesture = received.gesture else { return false }
            return gesture.gesture == .press && (gesture.phase == .ended || gesture.phase == .cancelled)
        }
        return lines
    }

    /// The panel, the daemon passing it through, a subscriber, and the clone's node. `files`
    /// names the daemon's configuration, socket and log in the work directory.
    func start(config: String = Self.config(), files: String = "pass-through", deviceName: String = Self.deviceName) throws
        -> (TouchPanel, DaemonProcess, Subscriber, String, String)
    {
        let configPath = "\(work)/\(files).toml"
        try writeConfig(config, to: configPath)
        let panel = try TouchPanel(descriptionFile: elanDescription, name: deviceName)
        let daemon = try DaemonProcess(
            executable: gestured, config: configPath, socketPath: "\(work)/\(files).sock", logPath: "\(work)/\(files).log")
        let subscriber = try Subscriber(socketPath: daemon.socketPath)
        let hello = try subscriber.subscribe()
        if !hello.devices.contains(where: { $0.name == panel.name }) { try awaitDevice(subscriber, panel.name, .added) }
        return (panel, daemon, subscriber, try findClone(of: panel.devnode), configPath)
    }

    func writeConfig(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CaseFailure("cannot write \(path)")
        }
    }

    /// The node of the clone of the device at `original`, once it exists (10 s at most).
    func findClone(of original: String) throws -> String {
        try findNode(phys: PassThroughClone.phys(cloning: original), what: "clone of \(original)")
    }

    /// The node whose `phys` is `phys`, once it exists (10 s at most).
    func findNode(phys: String, what: String) throws -> String {
        let deadline = monotonicMicroseconds() + 10_000_000
        while monotonicMicroseconds() < deadline {
            if case .nodes(let nodes) = try DeviceDiscovery.scan() {
                for node in nodes where (try? EvdevNode.description(node.path))?.phys == phys { return node.path }
            }
            pause(milliseconds: 50)
        }
        throw CaseFailure("no \(what) (phys \"\(phys)\") appeared")
    }

    /// Puts a finger down (`fingerDown`), waits until the clone at `clone` shows it, reloads
    /// the daemon with `config`, and reads the clone until it vanishes: it must go within
    /// 10 s, with nothing left down on it (the finger lifted before it went).
    func reloadWithFingerDown(
        clone: String, config: String, configPath: String, daemon: DaemonProcess, fingerDown: () throws -> Void
    ) throws {
        let reader = try EvdevNode(clone)
        try fingerDown()
        // Until it is there: the daemon's delay under emulation on a busy host is no verdict.
        try reader.read(forMilliseconds: 10_000) { $0.slots.count == 1 }
        try expect(reader.state.slots.count == 1, "the finger did not reach the clone in 10 s: \(reader.state.slots)")
        try writeConfig(config, to: configPath)
        daemon.signal(SIGHUP)
        try reader.read(forMilliseconds: 10_000)
        try expect(reader.gone, "the clone is still there 10 s after the reload")
        try expect(
            reader.state.slots.isEmpty && reader.state.keysDown.isEmpty,
            "left on the clone: \(reader.state.slots), keys \(reader.state.keysDown)")
    }

    private func readCount(_ reader: EvdevDevice) throws -> Int {
        var count = 0
        _ = try reader.readAvailable { _ in count += 1 }
        return count
    }
}

/// A reader of a node that follows it until it vanishes, keeping the reader's state.
final class EvdevNode {
    private let device: EvdevDevice
    private(set) var state = EvdevReader()
    /// Every event read, as read.
    private(set) var events: [InputEvent] = []
    private(set) var gone = false

    init(_ path: String) throws {
        device = try EvdevDevice(path: path)
        try device.useMonotonicClock()
    }

    static func description(_ path: String) throws -> DeviceDescription {
        try EvdevDevice(path: path).description
    }

    /// Reads for `milliseconds`, until the node vanishes, or until `done` holds for what was
    /// read so far.
    func read(forMilliseconds milliseconds: Double, until done: (EvdevReader) -> Bool = { _ in false }) throws {
        let deadline = monotonicMicroseconds() + UInt64(milliseconds * 1000)
        while !gone, !done(state), monotonicMicroseconds() < deadline {
            var events: [InputEvent] = []
            if case .deviceGone = try device.readAvailable(into: { events.append($0) }) { gone = true }
            state.read(events)
            self.events += events
            var descriptors = [pollfd(fd: device.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0)]
            _ = try? Polling.poll(&descriptors, timeoutMilliseconds: 20)
        }
    }
}

/// The floor to compare pass-through with: a thread that grabs a device and writes every
/// frame it reads to a uinput clone at once, with nothing else to do.
private final class BareForwarder: @unchecked Sendable {
    private let source: EvdevDevice
    private let clone: UinputDevice
    private let stopPipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
    private let finished = DispatchSemaphore(value: 0)
    var clonePath: String { clone.devnode }

    init(source path: String) throws {
        source = try EvdevDevice(path: path)
        try source.useMonotonicClock()
        try source.grab()
        var description = source.description
        description.name = "e2e forwarder clone"
        clone = try UinputDevice(description)
        stopPipe = try FileDescriptor.pipe(options: [.closeOnExec])
        Thread.detachNewThread { [self] in
            forward()
            finished.signal()
        }
    }

    func stop() {
        _ = try? stopPipe.writeEnd.writeAll([UInt8(1)])
        finished.wait()
        try? stopPipe.readEnd.close()
        try? stopPipe.writeEnd.close()
    }

    private func forward() {
        var frame: [InputEvent] = []
        while true {
            var descriptors = [
                pollfd(fd: source.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe.readEnd.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            _ = try? Polling.poll(&descriptors, timeoutMilliseconds: -1)
            if descriptors[1].revents != 0 { return }
            let outcome = try? source.readAvailable { event in
                frame.append(event)
                if event.type == EV.syn && event.code == SYN.report {
                    try? clone.write(frame)
                    frame.removeAll(keepingCapacity: true)
                }
            }
            if case .deviceGone? = outcome { return }
        }
    }
}

/// `value`, or a failure naming what is missing.
func required<Value>(_ value: Value?, _ what: String) throws(CaseFailure) -> Value {
    guard let value else { throw CaseFailure("no \(what)") }
    return value
}
