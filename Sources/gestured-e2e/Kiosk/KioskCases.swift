import EvdevInput
import Foundation
import GestureClient
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Recordings
import SystemCalls

/// The kiosk tier: gestured with `pass-through = true` between a uinput touchscreen and a
/// real Wayland compositor (cage, sway) showing a real client: wev, which prints every
/// `wl_touch` event it receives (the protocol level), and Chromium in kiosk mode started as
/// docs/kiosk.md says, showing a page that logs its DOM events (`ChromiumRun`). Verdicts
/// come from what the client and a socket subscriber received, never from timing. With
/// wev: the same input with and without gestured must give the client the same sequence
/// and coordinates; reserved and wake touches must never reach it; no stop, kill, unplug or
/// reload may leave it a touch down; a panel with pointer capabilities must give a
/// touch-only clone; a udev calibration keyed on the device must apply through the clone.
/// Latency with and without gestured is printed (`BENCH`), never asserted.
struct KioskCases {
    let gestured: String
    let gesturedWeb: String
    let work: String
    let elanDescription: String
    /// The stacks to run, by `KioskStack.selector` (a compositor, or `COMPOSITOR-wake`), and
    /// the clients (of the root's stacks).
    let compositors: [String]
    let clients: [KioskStack.Client]
    /// The kiosk guide whose recipes the Chromium stacks run (docs/kiosk.md).
    let guide: String
    /// The tier's page (the directory vm/kiosk-page) and the JS client beside it (web/gestured.js).
    let page: String
    let jsClient: String
    /// Frames of each latency run, `interval` ms apart.
    let frames: Int
    let interval: Double
    /// Whether gestured runs as a systemd service (`KioskService`; this boot has systemd as
    /// PID 1) rather than by hand: then only the service's cases run, with wev.
    let underSystemd: Bool
    /// The packaged unit whose restart and descriptor-store settings the service takes.
    let packagedUnit: String
    var daemonSocket: String { "\(work)/kiosk.sock" }
    /// `gesturectl`, built beside gestured.
    var gesturectl: String { (gestured as NSString).deletingLastPathComponent + "/gesturectl" }

    /// Every device of the tier is named so; the daemon passes them all through.
    static let namePrefix = "kiosk pass"
    static let panelName = "\(namePrefix) ELAN Touchscreen"
    static let calibratedName = "\(namePrefix) calibrated ELAN Touchscreen"
    /// A portrait kiosk's rule: libinput's matrix for a 90° turn (x' = 1 − y, y' = x),
    /// keyed on the device's name as an operator writes it for the original touchscreen.
    static let matrix = "0 -1 1 1 0 0"
    static let rules = """
        KERNEL=="event*", ATTRS{name}=="\(calibratedName)", ENV{LIBINPUT_CALIBRATION_MATRIX}="\(matrix)"

        """
    /// The daemon's configuration: the e2e pass-through cases' (a reserved top edge for
    /// swipes) for the tier's devices.
    static func config(passThrough: Bool = true, deviceKeys: [String] = []) -> String {
        PassThroughCases.config(passThrough: passThrough, matchName: "\(namePrefix) *", deviceKeys: deviceKeys)
    }

    /// The keys that keep a pinch and a resting finger from the app.
    static let appKeys = ["app-fingers = 1", "app-long-press = false"]

    static let wakeConfig = PassThroughCases.wakeConfig(matchName: "\(namePrefix) *")

    func run(_ harness: Harness) {
        var system: KioskSystem?
        var root: KioskRoot?
        let setup = underSystemd ? "seatd starts (udevd is the boot's)" : "systemd-udevd (with a calibration rule) and seatd start"
        harness.run("kiosk: \(setup)", always: true) {
            let current = try KioskRoot.current()
            let elsewhere = compositors.filter { selector in !current.stacks.contains { $0.selector == selector } }
            try expect(
                elsewhere.isEmpty, "\(elsewhere) run on another root than this one (\(current.codename)): vm/test-kiosk.sh boots each root")
            root = current
            system = try KioskSystem(work: work, rules: Self.rules, startsUdevd: !underSystemd)
        }
        guard let system, let root else { return }
        var site: ProbeSite?
        defer {
            site?.stop()
            system.stop()
        }
        for stack in root.stacks where stack.isSelected(by: compositors) && clients.contains(stack.client) {
            if underSystemd {
                if stack.client == .wev { KioskRun(kind: stack.compositor, cases: self).runUnderService(harness) }
                continue
            }
            switch stack.client {
            case .wev:
                KioskRun(kind: stack.compositor, cases: self).run(harness)
                KioskKeysRun(kind: stack.compositor, cases: self).run(harness)
                for program in [KeyboardClientLog.Program.xev, .wev] where stack.compositor.deliversEmulatedButtons {
                    KioskPointerRun(kind: stack.compositor, cases: self, program: program).run(harness)
                }
            case .chromium:
                if site == nil {
                    harness.run("kiosk: gestured-web serves the page (loopback up)", always: true) {
                        site = try ProbeSite(gesturedWeb: gesturedWeb, page: page, client: jsClient, daemonSocket: daemonSocket, work: work)
                    }
                }
                guard let site else { continue }
                ChromiumRun(stack: stack, cases: self, site: site).run(harness)
            }
        }
    }
}

/// The cases with wev under one compositor.
final class KioskRun {
    let kind: CompositorKind
    let cases: KioskCases
    var compositor: Compositor!
    var client: WaylandClientLog!
    var panel: TouchPanel!
    var calibrated: TouchPanel!
    var daemon: DaemonProcess?
    var subscriber: Subscriber?
    /// gestured as a systemd service (`runUnderService`), instead of `daemon`.
    var service: KioskService?
    var configPath: String { "\(cases.work)/kiosk.toml" }

    init(kind: CompositorKind, cases: KioskCases) {
        self.kind = kind
        self.cases = cases
    }

    var prefix: String { "kiosk [\(kind.rawValue)+wev]" }
    func name(_ text: String) -> String { "\(prefix): \(text)" }

    /// Where taps land for the calibration cases: one point per quadrant's side, so that
    /// a 90° turn moves every one of them.
    let calibrationSpots = [Spot(0.25, 0.25), Spot(0.75, 0.25), Spot(0.25, 0.75)]

    func run(_ harness: Harness) {
        harness.run(name("the compositor starts, wev is activated, and touches on two touchscreens reach it"), always: true) {
            client = try WaylandClientLog(fifo: "\(cases.work)/wev-\(kind.rawValue).fifo")
            compositor = try Compositor(
                kind, setup: CompositorSetup(fillOutput: true), client: client, name: "\(kind.rawValue)-wev", work: cases.work)
            panel = try TouchPanel(descriptionFile: cases.elanDescription, name: KioskCases.panelName)
            calibrated = try TouchPanel(descriptionFile: cases.elanDescription, name: KioskCases.calibratedName)
            try probe(panel, "\(panel.name) (read by the compositor itself)")
            try probe(calibrated, "\(calibrated.name) (read by the compositor itself)")
        }
        guard compositor != nil, panel != nil else {
            if compositor != nil { say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 15))") }
            compositor?.stop()
            return
        }
        defer {
            daemon?.stop()
            compositor.stop()
        }

        var baseline: [String]?
        harness.run(name("without gestured: taps, a double tap and a drag reach the client")) {
            let (sequence, _) = try stimuli()
            try expect(sequence.filter { $0.hasPrefix("down") }.count == 4, "the client got \(sequence)")
            baseline = sequence
        }
        var turned: [String]?
        harness.run(name("without gestured: the udev rule's LIBINPUT_CALIBRATION_MATRIX turns the calibrated panel's taps by 90°")) {
            let plain = try taps(panel, calibrationSpots)
            let rotated = try taps(calibrated, calibrationSpots)
            try expect(plain != rotated, "the same coordinates with and without the rule: \(plain)")
            turned = rotated
        }
        harness.run(name("latency without gestured (BENCH)")) { try latency(label: "without gestured") }

        harness.run(name("gestured starts with pass-through; the compositor takes touches from the clones"), always: true) {
            try startDaemon(config: KioskCases.config())
        }
        guard daemon != nil else { return }

        harness.run(
            name(
                "through gestured the client gets the same down/motion/up sequence and coordinates; a subscriber the gestures gestured replay gives"
            )
        ) {
            guard let baseline else { throw CaseFailure("no baseline (the case without gestured failed)") }
            _ = subscriber!.drain(quiet: 0.3)
            let (sequence, written) = try stimuli()
            try expect(
                sequence == baseline,
                "through gestured: \(sequence.joined(separator: "; ")); without: \(baseline.joined(separator: "; "))")
            try compareWithReplay(written)
        }
        harness.run(name("calibration: the udev rule keyed on the original's name still turns the taps through the clone")) {
            guard let turned else { throw CaseFailure("no reference (the case without gestured failed)") }
            let through = try taps(calibrated, calibrationSpots)
            try expect(through == turned, "through gestured \(through); without gestured \(turned)")
        }
        harness.run(name("latency through gestured (BENCH)")) { try latency(label: "through gestured") }
        harness.run(name("an exit swipe from the reserved edge reaches the subscriber as a swipe and never the client")) {
            try reservedSwipe()
        }
        harness.run(
            name(
                "a panel that also advertises BTN_LEFT: udev calls it a mouse, its clone a touchscreen only; gestured devices shows both identities and sway's identifier"
            )
        ) {
            try pointerCapabilities(extra: [EV.key: [BTN.left]], label: "buttons")
        }
        harness.run(name("a panel that also advertises REL_X/REL_Y and BTN_LEFT: udev calls it a mouse, its clone a touchscreen only")) {
            // REL_X = 0, REL_Y = 1.
            try pointerCapabilities(extra: [EV.key: [BTN.left], EV.rel: [0, 1]], label: "relative")
        }
        harness.run(name("no stuck touch: SIGTERM with a finger down lifts it in the client; a touch after the restart works")) {
            try stopWithFingerDown(signal: SIGTERM)
        }
        harness.run(name("no stuck touch: SIGKILL with a finger down lifts it in the client; a touch after the restart works")) {
            try stopWithFingerDown(signal: SIGKILL)
        }
        harness.run(name("no stuck touch: unplugging the original with a finger down lifts it in the client; a new panel works")) {
            try unplugWithFingerDown()
        }
        harness.run(
            name(
                "no stuck touch: a reload turning pass-through off lifts the finger; the original then works directly, and again through a clone"
            )
        ) {
            try reloadWithFingerDown()
        }
        harness.run(
            name(
                "wake-swallow after the daemon's idle timeout: the first tap is swallowed only where the display's power cannot be read; the taps after it reach the client"
            )
        ) {
            try wakeSwallow()
        }
        if harness.failures.contains(where: { $0.hasPrefix(prefix) }) {
            if let daemon { say("gestured log (\(daemon.logPath)): \(tail(daemon.logPath, lines: 15))") }
            say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 10))")
        }
    }

    // MARK: stimuli

    /// A tap until one reaches the client: the compositor opens a new device (or the
    /// daemon's clone) some time after it appears, and touches before that are lost.
    /// `double`: two taps each time (wake-swallow takes the first after an idle pause).
    func probe(_ panel: TouchPanel, _ what: String, double: Bool = false, attempts: Int = 15) throws(CaseFailure) {
        for _ in 1...attempts {
            let mark = client.touches.count
            try tap(panel, Spot(0.85, 0.85))
            if double {
                client.settle(milliseconds: 100, alongside: subscriber)
                try tap(panel, Spot(0.85, 0.85))
            }
            if (try? client.wait("a probe tap", timeout: 3, alongside: subscriber) { client.count(.up, since: mark) >= 1 }) != nil {
                client.settle(milliseconds: 300, alongside: subscriber)
                return
            }
        }
        throw CaseFailure("no tap on \(what) reached the client in \(attempts) tries")
    }

    func tap(_ panel: TouchPanel, _ spot: Spot, hold: Double = 50) throws(CaseFailure) {
        try panel.frame([0: spot])
        client.settle(milliseconds: hold, alongside: subscriber)
        try panel.frame([:])
    }

    /// One tap per spot; the coordinates of the client's `down` for each.
    func taps(_ panel: TouchPanel, _ spots: [Spot]) throws(CaseFailure) -> [String] {
        var coordinates: [String] = []
        for spot in spots {
            let mark = client.touches.count
            try tap(panel, spot)
            try client.wait("the tap at (\(spot.x), \(spot.y))", alongside: subscriber) { client.count(.up, since: mark) >= 1 }
            guard let down = client.touches(since: mark).first(where: { $0.kind == .down }), let x = down.x, let y = down.y else {
                throw CaseFailure("an up without a down: \(describe(client.touches(since: mark)))")
            }
            coordinates.append("\(x),\(y)")
        }
        return coordinates
    }

    /// A frame as written: its events stamped just before the write and just after it. The
    /// kernel stamps them during the write, so its moment lies between the two (on a busy
    /// host the two are milliseconds apart).
    struct WrittenFrame {
        var before: [InputEvent]
        var after: [InputEvent]
    }

    /// A tap, a double tap and a one-finger drag in the middle of the screen; returns the
    /// client's sequence for them and the frames written (CLOCK_MONOTONIC, the kernel's clock
    /// for them).
    func stimuli() throws(CaseFailure) -> (client: [String], written: [WrittenFrame]) {
        var writer = TouchFrameWriter(panel.description)
        var written: [WrittenFrame] = []
        func play(_ fingers: [Int: Spot], then milliseconds: Double) throws(CaseFailure) {
            let events = writer.frame(fingers, time: Timestamp(microseconds: monotonicMicroseconds()))
            try panel.write(events)
            let end = Timestamp(microseconds: monotonicMicroseconds())
            written.append(
                WrittenFrame(
                    before: events,
                    after: events.map { event in
                        var restamped = event
                        restamped.time = end
                        return restamped
                    }))
            client.settle(milliseconds: milliseconds, alongside: subscriber)
        }
        let mark = client.touches.count
        try play([0: Spot(0.5, 0.5)], then: 60)
        try play([:], then: 700)
        try play([0: Spot(0.4, 0.45)], then: 60)
        try play([:], then: 100)
        try play([0: Spot(0.4, 0.45)], then: 60)
        try play([:], then: 700)
        for step in 0...16 {
            let t = Double(step) / 16
            try play([0: Spot(0.3 + 0.4 * t, 0.55 + 0.1 * t)], then: 20)
        }
        try play([:], then: 0)
        try client.wait("the four lifts", alongside: subscriber) { client.count(.up, since: mark) >= 4 }
        client.settle(milliseconds: 300, alongside: subscriber)
        return (clientSequence(client.touches(since: mark)), written)
    }

    /// The subscriber's gestures for the panel (read until quiet) against `gestured
    /// replay`'s for the same frames, stamped at the start of their writes and again at their
    /// ends: the daemon saw the kernel's moments, which lie between, so on a busy host either
    /// replay may be the one it agrees with.
    func compareWithReplay(_ written: [WrittenFrame]) throws(CaseFailure) {
        let received = subscriber!.drain(quiet: 0.8)
        let got = received.compactMap(\.gesture).filter { $0.device == panel.name }.compactMap(signature)
        func replayed(_ events: [InputEvent]) -> [String] {
            replayedSignatures(Recording(path: "kiosk stimuli", format: .evemu, device: panel.description, events: events))
        }
        let atStart = replayed(written.flatMap(\.before))
        let atEnd = replayed(written.flatMap(\.after))
        try expect(
            got == atStart || got == atEnd,
            "the subscriber got [\(got.joined(separator: ", "))]; gestured replay gives [\(atStart.joined(separator: ", "))] "
                + "(stamped as the writes began), [\(atEnd.joined(separator: ", "))] (as they ended)")
    }

    /// A finger circling the middle, one frame every `interval` ms: the delay from each
    /// frame's write (the kernel stamps it then) to the client's line for it.
    func latency(label: String) throws(CaseFailure) {
        var writeTimes: [UInt64] = []
        let mark = client.touches.count
        for step in 0..<cases.frames {
            let angle = Double(step) / 40 * 2 * Double.pi
            writeTimes.append(monotonicMicroseconds())
            try panel.frame([0: Spot(0.5 + 0.2 * cos(angle), 0.55 + 0.2 * sin(angle))])
            client.settle(milliseconds: cases.interval, alongside: subscriber)
        }
        try panel.lift()
        try client.wait("the circling finger's lift", timeout: 30, alongside: subscriber) { client.count(.up, since: mark) >= 1 }
        let arrivals = client.touches(since: mark).filter { $0.kind == .down || $0.kind == .motion }.map(\.receivedAt)
        try expect(!arrivals.isEmpty, "no touch of the circling finger reached the client")
        let delays = zip(writeTimes, arrivals).map { Int64($1) - Int64($0) }
        let note = arrivals.count == writeTimes.count ? "" : " (\(arrivals.count) events for \(writeTimes.count) frames: paired in order)"
        say(
            "BENCH kiosk \(kind.rawValue) \(label): kernel event → Wayland client, \(cases.frames) frames every \(cases.interval) ms: \(LatencyFigures(samples: delays))\(note)"
        )
        _ = subscriber?.drain(quiet: 0.3)
    }

    // MARK: the daemon

    func writeConfig(_ text: String) throws(CaseFailure) {
        guard FileManager.default.createFile(atPath: configPath, contents: Data(text.utf8)) else {
            throw CaseFailure("cannot write \(configPath)")
        }
    }

    /// Starts gestured, subscribes, and waits until the compositor takes touches from the
    /// clone of the panel (and of the calibrated panel).
    func startDaemon(config: String, double: Bool = false) throws(CaseFailure) {
        try writeConfig(config)
        let started = try startKioskDaemon(cases, config: configPath, panels: [panel, calibrated], pumping: client)
        daemon = started.daemon
        subscriber = started.subscriber
        for panel in [panel!, calibrated!] { try probe(panel, "\(panel.name) through its clone", double: double) }
        _ = started.subscriber.drain(quiet: 0.3)
    }

    func cloneNode(of panel: TouchPanel, timeout: Double = 15) throws(CaseFailure) -> String {
        try cloneNodeOf(panel, timeout: timeout, pumping: client, alongside: subscriber)
    }

    // MARK: cases

    func reservedSwipe() throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        _ = subscriber.drain(quiet: 0.3)
        let mark = client.touches.count
        try panel.swipeDownFromTopEdge { client.settle(milliseconds: 12, alongside: subscriber) }
        let swipe = try subscriber.gestures(until: "a swipe from the exit edge") { $0.gesture == .swipe && $0.phase == .ended }.last!
        try expect(swipe.region == "exit-edge", "the swipe came from region \(swipe.region ?? "null")")
        // Two marker taps at one spot, after the swipe on the same device: the client must
        // have exactly their two downs (same coordinates) and lifts, nothing of the swipe.
        try tap(panel, Spot(0.65, 0.65))
        client.settle(milliseconds: 100, alongside: subscriber)
        try tap(panel, Spot(0.65, 0.65))
        try client.wait("the two marker taps", alongside: subscriber) { client.count(.up, since: mark) >= 2 }
        client.settle(milliseconds: 300, alongside: subscriber)
        let seen = client.touches(since: mark)
        let downs = seen.filter { $0.kind == .down }
        try expect(
            seen.count == 4 && downs.count == 2 && downs[0].x == downs[1].x && downs[0].y == downs[1].y,
            "the client got \(describe(seen)) for a reserved swipe and two taps at one spot")
    }

    func pointerCapabilities(extra: [UInt16: Set<UInt16>], label: String) throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        var description: DeviceDescription
        do {
            description = try RecordingReader.readDevice(path: cases.elanDescription)
        } catch {
            throw CaseFailure("\(cases.elanDescription): \(error)")
        }
        description.name = "\(KioskCases.namePrefix) \(label) pointer ELAN Touchscreen"
        for (type, codes) in extra { description.codes[type, default: []].formUnion(codes) }
        let pointer = try TouchPanel(description)
        defer { pointer.unplug() }
        try awaitDevice(subscriber, pointer.name, .added)
        let original = try udevProperties(pointer.devnode)
        try expect(
            original["ID_INPUT_TOUCHSCREEN"] == "1" && original["ID_INPUT_MOUSE"] == "1",
            "udev on the original (no pass-through): \(original.sorted { $0.key < $1.key })")
        let clone = try cloneNode(of: pointer)
        let cloned = try udevProperties(clone)
        let pointerKeys = cloned.keys.filter { ["ID_INPUT_MOUSE", "ID_INPUT_POINTINGSTICK", "ID_INPUT_TOUCHPAD"].contains($0) }
        try expect(
            cloned["ID_INPUT_TOUCHSCREEN"] == "1" && pointerKeys.isEmpty,
            "udevadm info on the clone \(clone): \(cloned.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
        try probe(pointer, "\(pointer.name) through its clone")
        try identities(original: pointer.devnode, clone: clone)
    }

    /// `gestured devices` shows the clone's udev identity next to the original's (the
    /// original a mouse too, the clone a touchscreen only) and one sway identifier for both,
    /// which is the one sway itself gives the device (under sway).
    func identities(original: String, clone: String) throws(CaseFailure) {
        let listing = try devicesListing(gestured: cases.gestured, config: configPath, work: cases.work)
        let originalLines = listingBlock(listing, node: original)
        let cloneLines = listingBlock(listing, node: clone)
        func udevLine(_ lines: [String]) -> String { lines.first { $0.hasPrefix("  udev: ") } ?? "(no udev line)" }
        try expect(
            udevLine(originalLines).contains("ID_INPUT_MOUSE=1") && udevLine(cloneLines).contains("ID_INPUT_TOUCHSCREEN=1")
                && !udevLine(cloneLines).contains("ID_INPUT_MOUSE"),
            "gestured devices: original \(udevLine(originalLines)); clone \(udevLine(cloneLines))")
        try expect(
            cloneLines.contains("  clone of: \(original)"), "gestured devices does not pair \(clone) with \(original): \(cloneLines)")
        let prefix = "  sway identifier: "
        let identifiers = (originalLines + cloneLines).filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        try expect(
            identifiers.count == 2 && identifiers[0] == identifiers[1], "sway identifiers in gestured devices: \(identifiers)")
        if let sway = try compositor.swayTouchIdentifiers() {
            try expect(sway.contains(identifiers[0]), "sway calls its touch devices \(sway), gestured devices \(identifiers[0])")
        }
    }

    /// `udevadm info --query=property` of `node`, once udev has processed it (`ID_INPUT`).
    func udevProperties(_ node: String) throws(CaseFailure) -> [String: String] {
        let output = "\(cases.work)/udevadm.txt"
        let deadline = monotonicMicroseconds() + 15_000_000
        while true {
            let pid = try spawn(
                KioskRoot.udevadm, ["info", "--query=property", "--name=\(node)"], environment: ["SYSTEMD_IGNORE_CHROOT=1"],
                logPath: "\(cases.work)/udevadm.log", stdoutPath: output)
            let status = waitForExit(pid, timeout: 30)
            var properties: [String: String] = [:]
            for line in ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { properties[parts[0]] = parts[1] }
            }
            if status == 0, properties["ID_INPUT"] != nil { return properties }
            guard monotonicMicroseconds() < deadline else {
                throw CaseFailure("udev has no ID_INPUT for \(node) after 15 s: \(tail("\(cases.work)/udevadm.log"))")
            }
            client.settle(milliseconds: 200, alongside: subscriber)
        }
    }

    /// A finger down (and moved) until the client has it; returns the client's id for it
    /// and the mark after its down.
    func fingerDown() throws(CaseFailure) -> (id: Int32, mark: Int) {
        _ = subscriber?.drain(quiet: 0.2)
        let mark = client.touches.count
        try panel.frame([0: Spot(0.6, 0.6)])
        client.settle(milliseconds: 30, alongside: subscriber)
        try panel.frame([0: Spot(0.62, 0.61)])
        try client.wait("the finger's down and motion", alongside: subscriber) {
            client.count(.down, since: mark) >= 1 && client.count(.motion, since: mark) >= 1
        }
        guard let id = client.touches(since: mark).first(where: { $0.kind == .down })?.id else { throw CaseFailure("a down without an id") }
        return (id, client.touches.count)
    }

    enum Release { case released, downAgain, nothing }

    /// What the client got first for touch `id` after `mark`: an `up` (or a `cancel`), a
    /// new `down` with the same id (the first was left down), or nothing in `timeout` s.
    func release(of id: Int32, since mark: Int, timeout: Double) -> Release {
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while true {
            for touch in client.touches(since: mark) {
                if touch.kind == .cancel || (touch.kind == .up && touch.id == id) { return .released }
                if touch.kind == .down && touch.id == id { return .downAgain }
            }
            guard monotonicMicroseconds() < deadline else { return .nothing }
            client.pump(milliseconds: 100, alongside: subscriber)
        }
    }

    func expectReleased(_ id: Int32, since mark: Int, after what: String, timeout: Double = 15) throws(CaseFailure) {
        switch release(of: id, since: mark, timeout: timeout) {
        case .released: return
        case .downAgain:
            throw CaseFailure(
                "after \(what) the client got a new down for touch \(id) without an up for the first: \(describe(client.touches(since: mark)))"
            )
        case .nothing:
            throw CaseFailure(
                "the client's touch \(id) is still down \(Int(timeout)) s after \(what): \(describe(client.touches(since: mark)))")
        }
    }

    /// SIGTERM (the daemon lifts its clones' touches) or SIGKILL (each clone's guard process
    /// does) with a finger down: the client must get the lift with nothing restarted. The
    /// finger then lifts while gestured is gone (the compositor reads the ungrabbed original,
    /// which never showed it that touch), gestured comes back and a tap works.
    func stopWithFingerDown(signal: Int32) throws(CaseFailure) {
        guard let running = daemon else { throw CaseFailure("gestured is not running") }
        let (id, mark) = try fingerDown()
        let what = signal == SIGTERM ? "SIGTERM" : "SIGKILL"
        let signalled = monotonicMicroseconds()
        running.signal(signal)
        // The client is read meanwhile, so that its lines are stamped when they come.
        var status: Int32?
        while status == nil, monotonicMicroseconds() < signalled + 15_000_000 {
            status = waitForExit(running.pid, timeout: 0)
            if status == nil { client.pump(milliseconds: 10) }
        }
        let exited = monotonicMicroseconds()
        daemon = nil
        subscriber = nil
        if signal == SIGTERM { try expect(status == 0, "gestured exited with \(status.map(String.init) ?? "nothing after 15 s")") }
        try expectReleased(id, since: mark, after: what)
        // A figure for whoever reads the log, never a verdict.
        let lifted = client.touches(since: mark).first { $0.kind == .up || $0.kind == .cancel }?.receivedAt ?? signalled
        say(
            "  NOTE: \(what): gestured gone after \((exited - signalled) / 1000) ms, the client's up \(Int64(lifted) / 1000 - Int64(signalled) / 1000) ms after the signal"
        )
        try panel.lift()
        try restartDaemon()
        try probe(panel, "\(panel.name) after gestured came back")
    }

    /// Starts gestured again with the current configuration and waits for the panel's clone.
    func restartDaemon() throws(CaseFailure) {
        let started = try startKioskDaemon(cases, config: configPath, panels: [panel], pumping: client)
        daemon = started.daemon
        subscriber = started.subscriber
    }

    func unplugWithFingerDown() throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("gestured is not running") }
        let (id, mark) = try fingerDown()
        panel.unplug()
        try expectReleased(id, since: mark, after: "unplugging the original")
        try awaitDevice(subscriber, KioskCases.panelName, .removed)
        panel = try TouchPanel(descriptionFile: cases.elanDescription, name: KioskCases.panelName)
        try awaitDevice(subscriber, panel.name, .added)
        _ = try cloneNode(of: panel)
        try probe(panel, "a new \(panel.name) through its clone")
    }

    func reloadWithFingerDown() throws(CaseFailure) {
        guard let running = daemon else { throw CaseFailure("gestured is not running") }
        let clone = try cloneNode(of: panel)
        let (id, mark) = try fingerDown()
        try writeConfig(KioskCases.config(passThrough: false))
        running.signal(SIGHUP)
        try expectReleased(id, since: mark, after: "a reload turning pass-through off")
        let deadline = monotonicMicroseconds() + 10_000_000
        while RegularFile.anythingExists(path: clone) {
            try expect(monotonicMicroseconds() < deadline, "the clone \(clone) is still there 10 s after the reload")
            client.settle(milliseconds: 50, alongside: subscriber)
        }
        // The original is the compositor's again: its lift and a tap reach the client directly.
        try panel.lift()
        client.settle(milliseconds: 200, alongside: subscriber)
        try expect(client.down.isEmpty, "touches down after the reload: \(client.down.sorted())")
        try probe(panel, "\(panel.name) read by the compositor itself after the reload")
        try writeConfig(KioskCases.config())
        running.signal(SIGHUP)
        _ = try cloneNode(of: panel)
        try probe(panel, "\(panel.name) through a clone again after a reload turning pass-through on")
        try expect(running.isRunning, "gestured exited with \(running.exited ?? -1)")
    }

    func wakeSwallow() throws(CaseFailure) {
        if let running = daemon {
            running.stop()
            daemon = nil
        }
        try startDaemon(config: KioskCases.wakeConfig, double: true)
        guard let subscriber else { throw CaseFailure("no subscriber") }
        var attempt = 0
        while true {
            attempt += 1
            try subscriber.next("the idle line", timeout: 10 + PassThroughCases.idleTimeout) { activityPhase($0) == .idle }
            // What gestured reads the display from: a lit connector decides that the first
            // tap wakes nothing (the headless compositor leaves the guest's virtio GPU to
            // the console); with none, only the idle period says the screen may be dark.
            let connected = DrmConnector.connected()
            let lit = connected.contains(where: \.isLit)
            guard lit || connected.isEmpty else {
                throw CaseFailure("the display reads off with no blanker: \(DrmConnector.describeAll())")
            }
            let mark = client.touches.count
            try tap(panel, Spot(0.35, 0.35))
            client.settle(milliseconds: 100, alongside: subscriber)
            try tap(panel, Spot(0.65, 0.65))
            client.settle(milliseconds: 100, alongside: subscriber)
            try tap(panel, Spot(0.65, 0.65))
            try client.wait("the taps after the wake tap", alongside: subscriber) { client.count(.up, since: mark) >= (lit ? 3 : 2) }
            client.settle(milliseconds: 300, alongside: subscriber)
            let lines = subscriber.drain(quiet: 0.3)
            if lines.dropFirst().contains(where: { activityPhase($0) == .idle }) {
                // The driver stalled past the idle timeout between two taps (by the daemon's
                // clock): the stimulus was not what the case means.
                guard attempt < Harness.attempts else {
                    throw CaseFailure("idle between taps in \(attempt) attempts: \(lines.map(summary))")
                }
                say("RETRY \(name("wake-swallow")): an idle line between the taps")
                continue
            }
            let taps = lines.compactMap(\.gesture).filter { $0.gesture == .tap && $0.device == panel.name }
            try expect(taps.count >= 2, "the subscriber got \(lines.map(summary))")
            try expect(
                distance(taps[0].location, Spot(0.35, 0.35)) < locationTolerance,
                "the first tap is at \(describe(taps[0].location)), not the wake tap's (0.35, 0.35)")
            let seen = client.touches(since: mark)
            let downs = seen.filter { $0.kind == .down }
            let last = downs.suffix(2)
            try expect(
                downs.count == (lit ? 3 : 2) && last.first?.x == last.last?.x && last.first?.y == last.last?.y,
                "the client got \(describe(seen)) for \(lit ? "three taps on a lit display" : "a wake tap and two taps at one spot")")
            say(
                "  NOTE: \(name("wake-swallow after idle")): the display \(lit ? "reads lit" : "cannot be read"): \(DrmConnector.describeAll())"
            )
            return
        }
    }
}

/// An `activity` line's phase; nil for any other line.
func activityPhase(_ received: Received) -> ActivityPhase? {
    if case .activity(let activity)? = received.message { activity.phase } else { nil }
}
