import EvdevInput
import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls

/// Wake-swallow against a kiosk's blankers (`KioskBlanker`), with the kiosk page in
/// Chromium. Where the blanker switches the output off (under sway the guide's swayidle
/// line, sway's own `dpms`; under labwc raspi-config's line, `wlopm` through
/// wlr-output-power-management, and gestured's own idle actions running `wlopm`, each on
/// the compositor's DRM backend, the guest's virtio GPU), only the kernel's DRM state says
/// the screen is dark. Under cage nothing can switch the output off: the blankers record
/// that their commands ran, and gestured cannot read the display, so its own idle timeout
/// arms wake-swallow. The touch on the idle screen must reach no DOM event of the page (no
/// touch, no click, no key: the wake key is no key the page sees) and still bring the screen
/// back: swayidle's `resume` runs because the compositor counted gestured's wake key as
/// activity (labwc and cage drop the switch that sway would count); gestured's `active`
/// action runs on its `activity` line. Beside the blankers that darken under sway and labwc
/// the panel ghosts as a Touch Display 2 does (`PanelGhost`) while they wait: were one ghost
/// to reach the clone, the compositor would count it as activity and the blanker, whose
/// timeout is longer than the ghosts' period, would never fire; the page gets no event from
/// them, and a ghost on the dark screen leaves it dark. A socket subscriber gets the wake
/// touch as a tap; the next tap clicks where touched. Verdicts come from what the page, the subscriber, sway
/// (`get_outputs`), the kernel (sysfs `dpms`, under labwc) or the marks file report.
extension ChromiumRun {
    /// How long the output must stay dark after a ghost on the dark screen: the wake took
    /// under 2 s under emulation. A slower wake can only hide a failure, never invent one.
    static let darkAfterGhost = 3.0
    static let wakeSpot = Spot(0.35, 0.35)
    static let nextSpot = Spot(0.65, 0.65)

    /// The file the recording blankers write (`KioskBlanker.Mark`), writable by the kiosk user.
    var marksPath: String { "\(cases.work)/blank-marks-\(kind.rawValue)" }
    var actionsPath: String { "\(cases.work)/blank-actions-\(kind.rawValue).toml" }
    var actionsLog: String { "\(cases.work)/blank-actions-\(kind.rawValue).log" }

    /// The blankers this stack's wake case runs against.
    var blankers: [KioskBlanker] { KioskBlanker.blankers(for: kind, output: output, marks: marksPath) }

    /// gestured's configuration for the case: wake-swallow; its own idle timeout
    /// `idleTimeout` (0: off); the socket the kiosk user's actions runner connects to and
    /// `gestured devices` asks for the ghost series; the guide's `[touch]` table.
    func blankingConfig(idleTimeout: Int, touchHygiene: String) -> String {
        """
        [daemon]
        log-level = "debug"
        idle-timeout = \(idleTimeout)
        socket = "\(cases.daemonSocket)"
        socket-group = "nogroup"

        \(touchHygiene)

        [[device]]
        match-name = "\(KioskCases.namePrefix) *"
        pass-through = true
        wake-swallow = true
        wake-guard = 300

        [[device]]
        match-name = "*"
        enabled = false
        """
    }

    /// Whether each output is on: sway's `dpms` of every output; otherwise the kernel's
    /// connected connectors (lit: DPMS on and a CRTC).
    func outputsOn() throws(CaseFailure) -> [Bool] {
        guard kind == .sway else { return DrmConnector.connected().map(\.isLit) }
        return try compositor.swayQuery("get_outputs").compactMap { $0["dpms"] as? Bool }
    }

    /// The marks the recording blankers wrote so far.
    func marks() -> [KioskBlanker.Mark] {
        ((try? String(contentsOfFile: marksPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            KioskBlanker.Mark(rawValue: String($0))
        }
    }

    /// Whether the screen is blanked now: every output off, or (a recording blanker) the
    /// last of each program's marks is its off mark.
    func blanked(_ blanker: KioskBlanker) throws(CaseFailure) -> Bool {
        if blanker.darkens {
            let states = try outputsOn()
            return !states.isEmpty && states.allSatisfy { !$0 }
        }
        let written = marks()
        return zip(blanker.offMarks, blanker.onMarks).allSatisfy { off, on in written.last { $0 == off || $0 == on } == off }
    }

    /// Whether the screen is back: every output on, or each program's last mark its on mark.
    func woken(_ blanker: KioskBlanker) throws(CaseFailure) -> Bool {
        if blanker.darkens { return try outputsOn().allSatisfy { $0 } }
        let written = marks()
        return zip(blanker.offMarks, blanker.onMarks).allSatisfy { off, on in written.last { $0 == off || $0 == on } == on }
    }

    /// What the blanker's state reads, for failure messages.
    func describeScreen(_ blanker: KioskBlanker) -> String {
        blanker.darkens
            ? "outputs on: \((try? outputsOn()) ?? []); sysfs \(DrmConnector.describeAll())" : "marks \(marks().map(\.rawValue))"
    }

    /// Waits (reading the page, and writing `ghost`'s ghosts when due, meanwhile) until
    /// `condition` holds.
    func awaitScreen(
        _ what: String, timeout: Double, _ blanker: KioskBlanker, ghost: inout PanelGhost?,
        until condition: () throws(CaseFailure) -> Bool
    ) throws(CaseFailure) {
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while try !condition() {
            guard monotonicMicroseconds() < deadline else {
                throw CaseFailure(
                    "\(what) within \(Int(timeout)) s\(ghost.map { " (\($0.written) ghosts written)" } ?? ""): \(describeScreen(blanker))")
            }
            page.settle(milliseconds: min(200, ghost?.millisecondsToDue ?? 200), alongside: subscriber)
            try ghost?.writeIfDue(on: panel)
        }
    }

    /// Waits (reading the page meanwhile) until `condition` holds.
    func awaitScreen(_ what: String, timeout: Double, _ blanker: KioskBlanker, until condition: () throws(CaseFailure) -> Bool)
        throws(CaseFailure)
    {
        var none: PanelGhost?
        try awaitScreen(what, timeout: timeout, blanker, ghost: &none, until: condition)
    }

    /// Starts the blanker's programs, as the kiosk's configuration would: sway runs the
    /// guide's line; elsewhere each runs in the session as the autostart would.
    func startBlanker(_ blanker: KioskBlanker) throws(CaseFailure) {
        guard FileManager.default.createFile(atPath: marksPath, contents: nil, attributes: [.posixPermissions: 0o666]) else {
            throw CaseFailure("cannot create \(marksPath)")
        }
        for program in blanker.programs {
            switch program {
            case .swayidle(let off, let on):
                let line = KioskBlanker.swayidleLine(off: off, on: on, seconds: blanker.idleSeconds)
                if kind == .sway {
                    try compositor.swayCommand("exec \(line)")
                } else {
                    blankerProcesses.append(try compositor.runInSession(line, name: "swayidle-\(kind.rawValue)"))
                }
            case .gesturedActions(let off, let on):
                func words(_ command: [String]) -> String { "[" + command.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
                try writeFile(
                    """
                    [[action]]
                    gesture = "idle"
                    run = \(words(off))

                    [[action]]
                    gesture = "active"
                    run = \(words(on))

                    """, to: actionsPath)
                // The runner, as the kiosk user, writes its log here: the file must be its to write.
                guard FileManager.default.createFile(atPath: actionsLog, contents: nil, attributes: [.posixPermissions: 0o666]) else {
                    throw CaseFailure("cannot create \(actionsLog)")
                }
                blankerProcesses.append(
                    try compositor.runInSession(
                        "\(cases.gesturectl) actions --config \(actionsPath) --socket \(cases.daemonSocket) > \(actionsLog) 2>&1",
                        name: "gesturectl-actions-\(kind.rawValue)"))
                _ = try awaitLogLine(actionsLog, containing: "connected to gestured", timeout: 60)
            }
        }
    }

    /// Stops what `startBlanker` started in the session.
    func stopBlanker() {
        for pid in blankerProcesses { Compositor.stopProcess(pid) }
        blankerProcesses = []
    }

    /// gestured's configuration for the case is `blankingConfig`; the Raspberry Pi OS session
    /// runs the guide's.
    func blankAndWake(_ blanker: KioskBlanker) throws(CaseFailure) {
        // gestured's own idle period starts only once the blanker runs (below): a daemon
        // that went idle before, with a display it cannot read, would swallow the probe
        // taps of its start, and the actions runner would miss the `idle` line.
        let guide = try KioskGuide(path: cases.guide)
        let touchHygiene = try guide.touchHygiene()
        let config = kind == .raspios ? try guide.file("raspios gestured.toml") : nil
        if config != nil && blanker.usesIdleTimeout {
            throw CaseFailure(
                "\(blanker.title) turns gestured's idle timeout on by rewriting blankingConfig; it needs no config of its own")
        }
        try startDaemon(
            config: config ?? blankingConfig(idleTimeout: 0, touchHygiene: touchHygiene), hidingDisplay: blanker.displayUnreadable)
        guard let subscriber, let running = daemon else { throw CaseFailure("no subscriber") }
        defer { stopBlanker() }
        // As a line of the kiosk's configuration would start it; only now, so that no other
        // case of the stack runs on a dark screen.
        try startBlanker(blanker)
        if blanker.usesIdleTimeout {
            let mark = running.logSize
            try writeConfig(blankingConfig(idleTimeout: blanker.idleSeconds, touchHygiene: touchHygiene))
            running.signal(SIGHUP)
            try page.wait("gestured's reload turning its idle timeout on", timeout: hangBound, alongside: subscriber) {
                running.log(since: mark).contains { $0.contains("configuration reloaded") }
            }
        }
        let what = "wake-swallow against \(blanker.title)"
        var ghost = blanker.ghosts ? PanelGhost() : nil
        let idleMark = page.events.count
        var attempt = 0
        while true {
            attempt += 1
            // No finger for the idle timeout, only the ghosts: the blanker switches the
            // output off.
            try awaitScreen("\(blanker.title) did not blank", timeout: Double(blanker.idleSeconds) + 60, blanker, ghost: &ghost) {
                () throws(CaseFailure) in try blanked(blanker)
            }
            if let written = ghost {
                // Once: a retry's idle wait has no ghosts.
                ghost = nil
                try ghostOnDarkScreen(written, since: idleMark)
            }
            _ = subscriber.drain(quiet: 0.2)
            let mark = page.events.count
            let tapped = monotonicMicroseconds()
            try tap(Self.wakeSpot)
            // A liveness bound: under emulation on a busy host starting `wlopm` alone may take
            // a second; the time it took is noted.
            try awaitScreen("the screen did not come back after the wake tap", timeout: 15, blanker) { () throws(CaseFailure) in
                try woken(blanker)
            }
            let woke = Double(monotonicMicroseconds() - tapped) / 1_000_000
            // The wake touch as the subscriber got it; held past the long-press time by the
            // kernel's timestamps, the driver stalled between its down and up (not the tap
            // the case means): the case runs again.
            var touch = try subscriber.gestures(until: "the wake touch's press ended") { $0.gesture == .press && $0.phase != .began }
            if let heldFor = try? held(touch), heldFor >= longPressMinimum - stimulusMargin {
                guard attempt < Harness.attempts else {
                    throw CaseFailure("the wake tap was held past a long press in \(attempt) attempts")
                }
                say("RETRY \(name(what)): the wake tap was held \(heldFor / 1000) ms by kernel time (the driver stalled)")
                continue
            }
            if !touch.contains(where: { $0.gesture == .tap }) {
                touch += try subscriber.gestures(until: "the wake tap") { $0.gesture == .tap }
            }
            let wake = touch.last { $0.gesture == .tap }!
            try expect(
                distance(wake.location, Self.wakeSpot) < locationTolerance,
                "the subscriber's tap is at \(describe(wake.location)), not the wake tap's (\(Self.wakeSpot.x), \(Self.wakeSpot.y))")
            // Past gestured's wake guard (300 ms from the display coming back on), the next
            // tap is the visitor's.
            page.settle(milliseconds: 800, alongside: subscriber)
            guard try woken(blanker) else {
                // The driver stalled past the idle timeout: the screen is blanked again.
                guard attempt < Harness.attempts else { throw CaseFailure("the screen blanked again in \(attempt) attempts") }
                say("RETRY \(name(what)): the screen blanked again before the next tap")
                continue
            }
            let next = page.events.count
            try tap(Self.nextSpot)
            let clicked =
                (try? page.wait("the click of the tap after the wake", timeout: Self.patience, alongside: subscriber) {
                    page.inputs(since: next).contains { $0.name == "click" }
                }) != nil
            if !clicked, try !woken(blanker), attempt < Harness.attempts {
                say("RETRY \(name(what)): the screen blanked again around the next tap")
                continue
            }
            quiesce()
            // Everything the page got since the wake tap must be the next tap's: an event
            // of the wake tap, however late, shows here.
            let beforeNext = page.events[mark..<next].filter(\.isInput)
            try expect(beforeNext.isEmpty, "the page got DOM events before the tap after the wake: \(describe(beforeNext))")
            try expect(clicked, "the tap after the wake did not click: \(describe(page.inputs(since: mark)))")
            let worst = try expectOneTap(page.inputs(since: mark), at: Self.nextSpot, "the wake tap and the tap after it")
            try expect(try woken(blanker), "the screen is blanked after the tap that followed the wake: \(describeScreen(blanker))")
            let log = (try? String(contentsOfFile: daemon?.logPath ?? "", encoding: .utf8)) ?? ""
            try expect(
                !log.contains("forwarded a touch on the dark display") && !log.contains("did not wake"),
                "gestured failed safe instead of waking the compositor: \(tail(daemon?.logPath ?? "", lines: 5))")
            if blanker.displayUnreadable {
                try expect(
                    log.contains("finds no DRM connector and no backlight"),
                    "gestured read a display it should not see: \(tail(daemon?.logPath ?? "", lines: 5))")
            }
            say(
                "  NOTE: \(prefix): \(blanker.title): the wake tap: no DOM event, a subscriber's tap at \(describe(wake.location)), the screen back \(String(format: "%.2f", woke)) s after the tap (polled every 0.2 s; \(describeScreen(blanker))); the next tap clicked \(worst) CSS px from the touch"
            )
            return
        }
    }

    /// The output is dark: the next ghost, on the dark screen, leaves it dark for
    /// `darkAfterGhost` seconds; the page got no event since `mark` (the blanker's start), a
    /// subscriber no gesture, and the daemon counted every ghost as `zero-duration`.
    private func ghostOnDarkScreen(_ ghost: PanelGhost, since mark: Int) throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        var pending = ghost
        while try !pending.writeIfDue(on: panel) {
            page.settle(milliseconds: pending.millisecondsToDue, alongside: subscriber)
        }
        let written = monotonicMicroseconds()
        while monotonicMicroseconds() - written < UInt64(Self.darkAfterGhost * 1_000_000) {
            page.settle(milliseconds: 200, alongside: subscriber)
            try expect(!(try outputsOn().contains(true)), "a ghost on the dark screen turned the output on: \(DrmConnector.describeAll())")
        }
        let leaked = page.events[mark...].filter(\.isInput)
        try expect(leaked.isEmpty, "the page got DOM events while only the panel's ghosts touched it: \(describe(leaked))")
        let gestures = subscriber.drain(quiet: 0.2).compactMap(\.gesture)
        try expect(gestures.isEmpty, "a subscriber got gestures while only the panel's ghosts touched it: \(gestures)")
        let dropped = try zeroDurationCount()
        try expect(
            dropped == pending.written, "gestured counted \(dropped) zero-duration touches for the \(pending.written) ghosts written")
        try expectSeriesListed(pending)
        say(
            "  NOTE: \(prefix): \(pending.written) ghosts every \(pending.period) s at (\(pending.spot.x), \(pending.spot.y)): the output went off at the blanker's timeout and stayed off after a ghost; all counted zero-duration"
        )
    }

    /// `gestured devices` shows, under the panel, each ghost series the daemon's `status`
    /// has for it, in `gesturectl status`' words; the ghosts written make one when their
    /// writes were surely on one period (a busy host may have stretched one past the rule's
    /// 2 %).
    private func expectSeriesListed(_ ghost: PanelGhost) throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        try subscriber.send(.status)
        let reply = try subscriber.next("the status reply") { if case .status? = $0.message { true } else { false } }
        guard case .status(let status)? = reply.message else { throw CaseFailure("no status reply") }
        let series = status.ghosts.filter { $0.device == panel.name }
        if ghost.written >= 3 && HygieneCases.surelyOnOnePeriod(ghost.writes) {
            try expect(
                series.contains { distance($0.location, ghost.spot) < locationTolerance && $0.count == UInt64(ghost.written) },
                "status shows no series of \(ghost.written) ghosts at (\(ghost.spot.x), \(ghost.spot.y)): \(status.ghosts)")
        }
        let listing = try devicesListing(gestured: cases.gestured, config: configPath, work: cases.work)
        let block = listingBlock(listing, node: panel.devnode)
        for line in series.map({ "  " + DeviceListing.ghostText($0) }) {
            try expect(block.contains(line), "gestured devices does not show \"\(line)\" under \(panel.devnode): \(block)")
        }
        say("  NOTE: \(prefix): gestured devices shows \(block.filter { $0.contains("ghost touches") })")
    }

    /// The daemon's `zero-duration` count for the panel (its `metrics` reply).
    private func zeroDurationCount() throws(CaseFailure) -> Int {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        try subscriber.send(.metrics)
        let reply = try subscriber.next("the metrics reply") { if case .metrics? = $0.message { true } else { false } }
        guard case .metrics(let metrics)? = reply.message else { throw CaseFailure("no metrics reply") }
        let inputs = metrics.inputs.first { $0.device == panel.name }
        return Int(inputs?.filtered.first { $0.reason == "zero-duration" }?.count ?? 0)
    }
}
