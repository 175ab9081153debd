import EvdevInput
import Foundation
import GestureCore
import GestureTestSupport
import SystemCalls

/// The Chromium cases in Raspberry Pi OS's session as it ships (`CompositorKind.raspios`):
/// labwc started as `labwc -m` with raspberrypi-ui-mods' /etc/xdg/labwc, the guide's
/// Raspberry Pi autostart, `~/.config/labwc/rc.xml` and gestured.toml (docs/kiosk.md,
/// extracted as written), raspi-config's blanking line, and Raspberry Pi's displays
/// (`RaspberryPiOS.panels`) all plugged in at once, each a mouse to labwc by the system
/// rc.xml. Taps run on every panel; the other cases on the first. The labwc verdicts come
/// from labwc's own log (`-V`): which autostart scripts it ran, in which order, and which
/// `<touch>` entry it gave each device.
extension ChromiumRun {
    /// The labwc log line for a device that got a `<touch deviceName=…>` entry.
    static func touchEntryLine(_ name: String) -> String { "found touch configuration for \(name)" }

    /// Waits (reading the page) until labwc's log says it found a `<touch>` entry for a
    /// device named `name`: labwc opens a device some time after it appears.
    func awaitTouchEntry(_ name: String) throws(CaseFailure) {
        let deadline = monotonicMicroseconds() + UInt64(Self.patience * 1_000_000)
        while !((try? String(contentsOfFile: compositor.logPath, encoding: .utf8))?.contains(Self.touchEntryLine(name)) ?? false) {
            guard monotonicMicroseconds() < deadline else {
                throw CaseFailure("labwc gave \(name) no <touch> entry within \(Int(Self.patience)) s: \(tail(compositor.logPath))")
            }
            page.settle(milliseconds: 200, alongside: subscriber)
        }
    }

    func runRaspberryPiOS(_ harness: Harness) {
        harness.run(
            name(
                "labwc -m ran /etc/xdg/labwc/autostart before the user's, and gave each of Raspberry Pi's panels the system rc.xml's touch entry (mouse emulation)"
            )
        ) {
            let log = (try? String(contentsOfFile: compositor.logPath, encoding: .utf8)) ?? ""
            let lines = log.split(separator: "\n").map(String.init)
            let system = lines.firstIndex { $0.contains("run session script /etc/xdg/labwc/autostart") }
            let user = lines.firstIndex { $0.contains("run session script \(compositor.runtimeDirectory)/.config/labwc/autostart") }
            try expect(
                system != nil && user != nil && system! < user!,
                "labwc ran the autostarts \(lines.filter { $0.contains("session script") })")
            for panel in panels { try awaitTouchEntry(panel.name) }
        }
        harness.run(
            name(
                "gestured starts with the guide's gestured.toml; each clone carries the guide's clone-name, which gets the guide's <touch> entry"
            ),
            always: true
        ) {
            let guide = try KioskGuide(path: cases.guide)
            try startDaemon(config: try guide.file("raspios gestured.toml"))
            for panel in panels {
                let node = try cloneNodeOf(panel, pumping: page, alongside: subscriber)
                let cloneName = (try? EvdevDevice(path: node).description.name) ?? "(unreadable)"
                try expect(cloneName != panel.name, "the clone of \(panel.name) has the panel's name")
                try expect(
                    recipe.setup.homeFiles[RaspberryPiOS.userRCXML]?.contains("deviceName=\"\(cloneName)\"") == true,
                    "the guide's rc.xml has no <touch> entry for the clone's name \(cloneName)")
                try awaitTouchEntry(cloneName)
            }
        }
        guard daemon != nil else {
            reportFailures(harness)
            return
        }
        if !stack.mouse {
            harness.run(
                name(
                    "the guide's actions runner (its autostart line) runs under labwc -m as the kiosk user in the session and connects; a long press on the reserved edge types Shift+R into Chromium: the page gets r with Shift held and nothing of the touch"
                )
            ) { try runnerTypesIntoPage() }
        }
        let first = panel!
        var emulated: [String] = []
        for (index, touched) in panels.enumerated() {
            let label = RaspberryPiOS.panels[index].label
            harness.run(name("through gestured, the \(label) (\(touched.name)): taps click where touched")) {
                panel = touched
                defer { panel = first }
                emulated += try tapsClick(at: index == 0 ? tapSpots : Array(tapSpots.prefix(2)))
            }
        }
        harness.run(
            name(
                "no cursor follows the finger: every click and press of the taps came from a touch, and no mouse pointer event of the page is at a touched point (labwc sent touches, not emulated pointer events)"
            )
        ) {
            // A mouse in the seat moves nothing here, so its pointer events (labwc's pointer
            // focus entering the page) are all at the cursor's one resting place; emulated
            // pointer events would follow each touch.
            let mice = page.events(since: daemonMark).filter { $0.isInput && $0.kind == "mouse" && $0.name.hasPrefix("pointer") }
            let places = Set(mice.map { "\($0.x ?? .nan),\($0.y ?? .nan)" })
            try expect(
                emulated.isEmpty && !mice.contains { $0.name != "pointermove" } && places.count <= 1,
                "the page got mouse events \(emulated) \(describe(mice))")
            if !mice.isEmpty { say("  NOTE: \(prefix): the mouse's own pointer events, all at \(places.sorted()): \(mice.count)") }
        }
        harness.run(name("a one-finger drag scrolls the page (no text selection) and clicks nothing")) {
            try dragScrolls()
            let selected = try page.state(alongside: subscriber).selection ?? ""
            try expect(selected.isEmpty, "the drag selected \(selected)")
        }
        harness.run(name("an exit swipe from the reserved edge gives the page no event and reaches it through gestured-web")) {
            try reservedSwipe()
        }
        harness.run(name("no stuck touch: SIGKILL with a finger down lifts it in the page; a tap after the restart clicks")) {
            // Past the tap slop: the guide's app-long-press = false keeps a resting finger from the page.
            try killWithFingerDown(moved: 0.1)
        }
        harness.run(name("a two-finger pinch leaves the page at scale 1; a subscriber gets the pinch")) { try pinchStaysOutOfPage() }
        harness.run(name("a long press gives the page no event, no menu, no selection; a subscriber gets it")) {
            try longPressStaysOutOfPage()
        }
        harness.run(
            name(
                "the contrast: without clone-name the clone gets the system's mouse-emulation entry and a tap gives the page no touch\(stack.mouse ? ", only mouse events" : "")"
            )
        ) { try cloneWithThePanelsName() }
        runWakeCases(harness)
        reportFailures(harness)
    }

    /// The guide's actions runner, started by the user's autostart line under `labwc -m`:
    /// one `/usr/bin/gesturectl actions`, the kiosk user's, with the session's display in its
    /// environment, its messages in labwc's log (its standard error), connected to the
    /// current daemon; a long press on the guide's reserved edge then types the tier's
    /// Shift+R (`RaspberryPiOS.actions`) through the session's keyboard into Chromium: the
    /// page gets `r` pressed and released with Shift held and no other input event, and a
    /// subscriber the long press in `exit-edge`.
    func runnerTypesIntoPage() throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        let runners = RaspberryPiOS.runners()
        guard runners.count == 1 else {
            throw CaseFailure("\(runners.count) processes run \(RaspberryPiOS.packagedGesturectl) actions: \(tail(compositor.logPath))")
        }
        let (uid, environment) = RaspberryPiOS.identity(of: runners[0])
        try expect(uid == (try KioskRoot.kioskUser().uid), "the runner runs as uid \(uid.map(String.init) ?? "unknown")")
        try expect(
            environment.contains("XDG_RUNTIME_DIR=\(compositor.runtimeDirectory)")
                && environment.contains { $0.hasPrefix("WAYLAND_DISPLAY=wayland-") },
            "the runner's environment is not the session's: \(environment)")
        let typing = "actions: the 'keys' actions type through the session's display \(compositor.runtimeDirectory)/wayland-"
        try expect(
            lines(of: compositor.logPath, since: 0).contains { $0.contains(typing) },
            "labwc's log has no \"\(typing)…\": \(tail(compositor.logPath))")
        try page.wait("the runner connected to the current gestured (labwc's log)", timeout: Self.patience, alongside: subscriber) {
            lines(of: compositor.logPath, since: sessionLogMark).contains { $0.contains("actions: connected to") }
        }
        _ = subscriber.drain(quiet: 0.3)
        let mark = page.events.count
        let edge = Spot(0.5, 0.02)
        try panel.frame([0: edge])
        page.settle(milliseconds: 1500, alongside: subscriber)
        try panel.lift()
        let press = try subscriber.gestures(until: "the long press on the edge") { $0.gesture == .longPress }.last!
        try expect(press.region == "exit-edge", "the subscriber's long press came from region \(press.region ?? "null")")
        try page.wait("the r typed into the page released", timeout: Self.patience, alongside: subscriber) {
            page.inputs(since: mark).contains { $0.name == "keyup" && $0.key?.lowercased() == "r" }
        }
        quiesce()
        let inputs = page.inputs(since: mark)
        try expect(
            inputs.allSatisfy { $0.name == "keydown" || $0.name == "keyup" }, "the page got more than keys: \(describe(inputs))")
        guard let down = inputs.firstIndex(where: { $0.name == "keydown" && $0.key?.lowercased() == "r" }),
            let up = inputs.firstIndex(where: { $0.name == "keyup" && $0.key?.lowercased() == "r" }), down < up
        else { throw CaseFailure("no keydown of r before its keyup: \(describe(inputs))") }
        try expect(inputs[down].held?.contains("Shift") == true, "r went down with \(inputs[down].held ?? []) held: \(describe(inputs))")
        say("  NOTE: \(prefix): the long press on the edge gave the page \(describe(inputs))")
    }

    /// gestured with the guide's file less its `clone-name` lines: the clone carries the
    /// panel's name, labwc gives it the system rc.xml's entry (a second "found touch
    /// configuration" line for the panel's name), and a tap reaches the page as no touch:
    /// with a mouse in the seat as mouse events, without one as nothing (labwc offers no
    /// pointer then).
    func cloneWithThePanelsName() throws(CaseFailure) {
        let guideConfig = try KioskGuide(path: cases.guide).file("raspios gestured.toml")
        daemon?.stop()
        daemon = nil
        try writeConfig(guideConfig.split(separator: "\n").filter { !$0.hasPrefix("clone-name") }.joined(separator: "\n") + "\n")
        let entry = Self.touchEntryLine(panel.name)
        func entries() -> Int {
            ((try? String(contentsOfFile: compositor.logPath, encoding: .utf8)) ?? "").components(separatedBy: entry).count - 1
        }
        let before = entries()
        daemonMark = page.events.count
        sessionLogMark = fileSize(compositor.logPath)
        let started = try startKioskDaemon(cases, config: configPath, panels: panels, pumping: page, socketGroup: socketGroup)
        daemon = started.daemon
        subscriber = started.subscriber
        let deadline = monotonicMicroseconds() + UInt64(Self.patience * 1_000_000)
        while entries() == before {
            guard monotonicMicroseconds() < deadline else {
                throw CaseFailure("labwc gave the clone named \(panel.name) no touch entry: \(tail(compositor.logPath))")
            }
            page.settle(milliseconds: 200, alongside: subscriber)
        }
        page.settle(milliseconds: 2000, alongside: subscriber)
        let mark = page.events.count
        try tap(Spot(0.5, 0.5))
        if stack.mouse {
            try page.wait("the tap's mouse pointerdown", timeout: Self.patience, alongside: subscriber) {
                page.inputs(since: mark).contains { $0.name == "pointerdown" && $0.kind == "mouse" }
            }
        } else {
            page.settle(milliseconds: 5000, alongside: subscriber)
        }
        quiesce()
        let inputs = page.inputs(since: mark)
        try expect(!inputs.contains { $0.name.hasPrefix("touch") || $0.kind == "touch" }, "the page got touches: \(describe(inputs))")
        say("  NOTE: \(prefix): without clone-name a tap gave the page \(describe(inputs))")
    }
}
