import EvdevInput
import Foundation
import GestureClient
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls

/// The cases with Chromium in kiosk mode under one compositor, started exactly as the
/// kiosk guide (docs/kiosk.md) says for that compositor, showing the tier's page
/// (vm/kiosk-page/probe.html). One browser start for all the cases: the page is loaded
/// again between cases that leave it zoomed, scrolled or with a selection. Verdicts are
/// what the page's DOM received and what a socket subscriber received, never timing.
final class ChromiumRun {
    let stack: KioskStack
    var kind: CompositorKind { stack.compositor }
    var output: KioskStack.Output { stack.output }
    let cases: KioskCases
    let site: ProbeSite
    var recipe: KioskGuide.Recipe!
    var page: ChromiumPage!
    var compositor: Compositor!
    /// The panel the cases touch.
    var panel: TouchPanel!
    /// Every panel plugged in, gestured passing each through (raspios: Raspberry Pi's
    /// displays; else `panel` alone).
    var panels: [TouchPanel] = []
    /// The USB mouse in the seat, when the stack has one.
    var mouse: TouchPanel?
    /// Whether gestured runs with `app-long-press = false`, which makes a tap held long a
    /// long press that the page never gets (`tap`).
    var tapsMustBeQuick: Bool { kind == .raspios }
    var daemon: DaemonProcess?
    var subscriber: Subscriber?
    /// The programs the wake case started in the session (swayidle, `gesturectl actions`),
    /// stopped after each blanker's case and with the stack.
    var blankerProcesses: [pid_t] = []
    /// The page's event count when the current daemon started.
    var daemonMark = 0
    /// The compositor log's size when the current daemon started: what the session's
    /// programs said after it (raspios: the guide's actions runner) is about that daemon.
    var sessionLogMark = 0
    /// The group gestured's socket is given (`startKioskDaemon`): the kiosk user's, where the
    /// guide's actions runner connects to a daemon whose configuration, the guide's, names
    /// none (raspios).
    var socketGroup: gid_t? { kind == .raspios ? try? KioskRoot.kioskUser().gid : nil }
    /// How the screen the page fills is turned relative to the panel, when gestured's clone
    /// reports in screen orientation at that rotation and cage's `-r` turns the output so
    /// (`runRotations`); nil for every other case: the output not turned, the clone (if
    /// any) in the panel's orientation.
    var screenRotation: Rotation?
    var configPath: String { "\(cases.work)/kiosk.toml" }

    init(stack: KioskStack, cases: KioskCases, site: ProbeSite) {
        self.stack = stack
        self.cases = cases
        self.site = site
    }

    /// How long the page may take to show what a touch caused: a liveness bound, never a
    /// verdict. Chromium under emulation on a busy host took minutes to load the page.
    static let patience = 90.0

    var prefix: String { "kiosk [\(stack.name)]" }
    func name(_ text: String) -> String { "\(prefix): \(text)" }

    /// Whether the guide runs Chromium as an X11 client through Xwayland.
    var throughXwayland: Bool { recipe.chromium.contains("--ozone-platform=x11") }

    /// How far from the played point a touch may reach the page, in CSS pixels along each
    /// axis. On Wayland the touch's own coordinates arrive (a `wl_fixed`, 1/256 px); through
    /// Xwayland they arrive as whole pixels 1–2 px up and left of the point (seen 1.8 px).
    var tolerance: Double { throughXwayland ? 3 : 0.5 }

    /// Where taps land: the middle, near each corner below the reserved top edge, and one
    /// off any symmetry.
    let tapSpots = [Spot(0.5, 0.5), Spot(0.08, 0.2), Spot(0.92, 0.2), Spot(0.08, 0.92), Spot(0.92, 0.92), Spot(0.33, 0.67)]

    func run(_ harness: Harness) {
        harness.run(
            name("Chromium starts with the guide's command line and shows the page full screen; touches reach it"), always: true
        ) {
            recipe = try KioskGuide(path: cases.guide).recipe(for: kind)
            if kind == .raspios {
                // The guide's runner line runs the package's gesturectl with its defaults.
                recipe.setup.homeFiles[RaspberryPiOS.userActions] = RaspberryPiOS.actions
                try RaspberryPiOS.installPackagedPaths(gesturectl: cases.gesturectl, socket: cases.daemonSocket)
            }
            try startBrowser(setup: recipe.setup, name: "\(kind.rawValue)-chromium")
            if stack.mouse { mouse = try RaspberryPiOS.plugMouse() }
            if kind == .raspios {
                // Read by labwc itself the panels are mice (the system rc.xml): the first
                // touches to probe with are the clones', once gestured runs.
                panels = try RaspberryPiOS.panels.map { (panel) throws(CaseFailure) in try RaspberryPiOS.plug(panel) }
                panel = panels.first
            } else {
                panel = try TouchPanel(descriptionFile: cases.elanDescription, name: KioskCases.panelName)
                panels = [panel]
                try probe("\(panel.name) (read by the compositor itself)")
            }
        }
        guard compositor != nil, panel != nil else {
            if compositor != nil { say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 15))") }
            if let page { say("\(page.recent)") }
            say("gestured-web log: \(tail(site.logPath, lines: 10))")
            compositor?.stop()
            if kind == .raspios { RaspberryPiOS.stopRunners() }
            return
        }
        defer {
            daemon?.stop()
            stopBlanker()
            compositor?.stop()
            if kind == .raspios { RaspberryPiOS.stopRunners() }
            for panel in panels { panel.unplug() }
            mouse?.unplug()
        }
        if kind == .raspios {
            runRaspberryPiOS(harness)
            return
        }
        if stack.wakeOnly {
            runWakeCases(harness)
            reportFailures(harness)
            return
        }
        harness.run(name("without gestured: taps click where touched")) { try tapsClick() }
        harness.run(name("gestured starts with pass-through; the page gets touches from the clone"), always: true) {
            try startDaemon(config: KioskCases.config())
        }
        guard daemon != nil else { return }
        harness.run(name("through gestured: taps click where touched")) { try tapsClick() }
        harness.run(name("through gestured: a drag scrolls the page and clicks nothing")) { try dragScrolls() }
        harness.run(
            name("an exit swipe from the reserved edge gives the page no event and reaches it through gestured-web as a swipe")
        ) { try reservedSwipe() }
        // Before the pinch: a zoomed page is loaded again, and through Xwayland the first
        // touches after a reload reach the page late or as mouse events (see probe).
        harness.run(name("no stuck touch: SIGKILL with a finger down lifts it in the page; a tap after the restart clicks")) {
            try killWithFingerDown()
        }
        harness.run(name("without app-fingers: a two-finger pinch zooms the page; a subscriber gets the pinch")) {
            let (inputs, state) = try pinch(zooms: true)
            let mostDown = inputs.compactMap(\.down).max() ?? 0
            try expect(mostDown == 2, "the page never had two touches down: \(describe(inputs))")
            try expect((state.scale ?? 0) > 1, "visualViewport.scale is \(state.scale ?? 0) after the pinch: \(describe(inputs))")
        }
        if throughXwayland {
            // Through Xwayland Chromium opens no menu of its own on a resting finger, and the
            // tap after such a press reached the page as mouse events only (no pointerdown,
            // no touchstart): there is no contrast to show, and the marker tap cannot be found.
            say("  NOTE: \(name("without app-long-press")): not run through Xwayland (Chromium opens no menu there)")
        } else {
            harness.run(name("without app-long-press: a long press opens the context menu and selects a word; a subscriber gets it")) {
                let (before, selected, _) = try longPress()
                try expect(before.contains { $0.name == "contextmenu" }, "no contextmenu: \(describe(before))")
                try expect(!selected.isEmpty, "nothing selected after the press: \(describe(before))")
                try expect(!before.contains { $0.name == "click" }, "the long press clicked: \(describe(before))")
            }
        }
        harness.run(name("gestured restarts with app-fingers = 1 and app-long-press = false"), always: true) {
            try startDaemon(config: KioskCases.config(deviceKeys: KioskCases.appKeys))
        }
        guard daemon != nil else { return }
        harness.run(name("app-fingers = 1: a two-finger pinch leaves the page at scale 1; a subscriber gets the pinch")) {
            try pinchStaysOutOfPage()
        }
        harness.run(
            name("app-long-press = false: a long press gives the page no event, no menu, no selection; a subscriber gets it")
        ) { try longPressStaysOutOfPage() }
        harness.run(name("app keys: taps still click where touched")) { try tapsClick() }
        harness.run(name("app keys: a drag still scrolls the page and clicks nothing")) { try dragScrolls() }
        if kind.deliversEmulatedButtons {
            harness.run(pointerCase) { try pointerClicks() }
            // grim's pictures show the cursor only where the output is really drawn: cage
            // 0.1.4 on the headless output fails its output test on every frame once the
            // seat has a pointer, and the picture kept a cursor the page had hidden.
            if output == .drm {
                harness.run(cursorCase) { try cursorSeen() }
            } else {
                say("  NOTE: \(cursorCase): not run on the \(output) output (a picture there does not show the cursor)")
            }
        }
        runWakeCases(harness)
        // Last: they restart the compositor with its output turned.
        if kind == .cage { runRotations(harness) }
        reportFailures(harness)
    }

    /// The wake case against each of the stack's blankers (`blankAndWake`).
    func runWakeCases(_ harness: Harness) {
        for blanker in blankers {
            harness.run(name(wakeCase(blanker))) { try blankAndWake(blanker) }
        }
    }

    /// Starts the compositor with `setup` showing Chromium with the guide's command line
    /// (`recipe`), and waits until the page fills the output at scale 1. `name` names the
    /// compositor's log and runtime directory (Chromium's fresh profile) and the page's FIFO.
    func startBrowser(setup: CompositorSetup, name: String) throws(CaseFailure) {
        page = try ChromiumPage(command: recipe.chromium, site: site, fifo: "\(cases.work)/\(name).fifo")
        say("  NOTE: \(kind.rawValue) \(setup.arguments.joined(separator: " ")) running \(page.shellCommand)")
        let started = monotonicMicroseconds()
        compositor = try Compositor(kind, setup: setup, client: page, name: name, work: cases.work, output: output)
        say(
            "  NOTE: the page was ready \((monotonicMicroseconds() - started) / 1_000_000) s after \(kind.rawValue) started (\(output), output \(Int(compositor.outputSize.width))×\(Int(compositor.outputSize.height)))"
        )
        // The kiosk window is made full screen once the compositor has configured it,
        // which may come after the page's first layout.
        let screen = compositor.outputSize
        try page.wait("the page to fill the \(Int(screen.width))×\(Int(screen.height)) output", timeout: Self.patience) {
            let size = page.events.last { ($0.name == "ready" || $0.name == "resize") && $0.generation == page.generation }
            return size?.w == screen.width && size?.h == screen.height
        }
        let state = try page.state(alongside: nil)
        try expect(state.scale == 1, "the page starts at scale \(state.scale ?? 0)")
    }

    /// The wake case's name against `blanker`.
    func wakeCase(_ blanker: KioskBlanker) -> String {
        "wake-swallow against \(blanker.title) (\(output)): \(blanker.ghosts ? "beside a panel ghosting every 12.864 s the output goes off, the page gets no ghost; " : "")a tap on the \(blanker.darkens ? "dark screen" : "idle screen") gives the page no DOM event and \(blanker.darkens ? "turns the output on" : "runs swayidle's resume and the active action"); a subscriber gets it; the next tap clicks where touched"
    }

    /// With `app-fingers = 1`: a pinch reaches the page as one finger and leaves it at scale 1.
    func pinchStaysOutOfPage() throws(CaseFailure) {
        let (inputs, state) = try pinch(zooms: false)
        let mostDown = inputs.compactMap(\.down).max() ?? 0
        let pointers = Set(inputs.filter { $0.name == "pointerdown" }.compactMap(\.id))
        try expect(mostDown == 1 && pointers.count == 1, "the page got more than one finger: \(describe(inputs))")
        try expect(state.scale == 1, "visualViewport.scale is \(state.scale ?? 0) after the pinch: \(describe(inputs))")
    }

    /// With `app-long-press = false`: a long press gives the page no event and no selection.
    func longPressStaysOutOfPage() throws(CaseFailure) {
        let (before, selected, _) = try longPress()
        try expect(!before.contains(where: \.isInput), "the page got \(describe(before.filter(\.isInput)))")
        let changes = before.filter { $0.name == "selectionchange" }.compactMap(\.text).filter { !$0.isEmpty }
        try expect(selected.isEmpty && changes.isEmpty, "the page selected \(selected) \(changes)")
    }

    /// After the stack's cases: the logs' last lines when one of them failed.
    func reportFailures(_ harness: Harness) {
        guard harness.failures.contains(where: { $0.hasPrefix(prefix) }) else { return }
        if let daemon { say("gestured log (\(daemon.logPath)): \(tail(daemon.logPath, lines: 15))") }
        if let compositor { say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 10))") }
        say(page.recent)
        say("gestured-web log: \(tail(site.logPath, lines: 10))")
    }

    // MARK: touches

    /// Where a touch at `spot` (a point of the panel, in its own orientation) reaches the
    /// page, in CSS pixels: on a turned screen (`screenRotation`) the clone reports it at its
    /// screen point, on the screen's axes (worked out in whole units by
    /// `PassThroughCases.screenPoint`, not by the daemon's transform); libinput maps the
    /// clone's axis ranges onto the output (`(value − min) × size / (max − min + 1)`); the
    /// browser fills the output at a device scale of 1.
    func expected(_ spot: Spot) -> (x: Double, y: Double) {
        let writer = TouchFrameWriter(panel.description)
        let rotation = screenRotation ?? .none
        let screen = PassThroughCases.screenPoint(
            x: writer.axis(ABS.mtPositionX, spot.x), y: writer.axis(ABS.mtPositionY, spot.y), panel: panel.description,
            rotation: rotation)
        let quarter = rotation.isQuarterTurn
        func css(_ value: Int32, along code: UInt16, _ size: Double) -> Double {
            guard let info = panel.description.absInfo[code] else { return .nan }
            return Double(value - info.minimum) * size / Double(info.maximum - info.minimum + 1)
        }
        return (
            css(screen.x, along: quarter ? ABS.mtPositionY : ABS.mtPositionX, compositor.outputSize.width),
            css(screen.y, along: quarter ? ABS.mtPositionX : ABS.mtPositionY, compositor.outputSize.height)
        )
    }

    /// How far (`x`, `y`) is from where a touch at `spot` must land, in CSS pixels along
    /// the axis where it is farther. `whole`: the event's
    /// coordinates are whole CSS pixels (a mouse event's `clientX` is the touch's truncated),
    /// so they are compared with the pixel the touch is in.
    func offset(_ x: Double?, _ y: Double?, from spot: Spot, whole: Bool = false) -> Double {
        guard let x, let y else { return .infinity }
        var want = expected(spot)
        if whole { want = (want.x.rounded(.down), want.y.rounded(.down)) }
        return max(abs(x - want.x), abs(y - want.y))
    }

    /// A finger down at `spot` for `hold` ms. With `app-long-press = false` (`tapsMustBeQuick`)
    /// a finger the driver could only lift after 400 ms (a stalled host) was a long press to
    /// gestured, which keeps it from the page: the tap is played again (said as `RETRY`).
    func tap(_ spot: Spot, hold: Double = 60) throws(CaseFailure) {
        for attempt in 1...Harness.attempts {
            let down = monotonicMicroseconds()
            try panel.frame([0: spot])
            page.settle(milliseconds: hold, alongside: subscriber)
            try panel.frame([:])
            let held = Double(monotonicMicroseconds() - down) / 1000
            guard tapsMustBeQuick, held > 400, attempt < Harness.attempts else { return }
            say("RETRY \(prefix): a tap at (\(spot.x), \(spot.y)) was held \(Int(held)) ms (a stalled host): played again")
            quiesce()
        }
    }

    /// Moves the fingers from `from` to `to` in `steps` frames `frame` ms apart (fingers not
    /// down touch down first), reading the page meanwhile; does not lift.
    func move(from: [Spot], to: [Spot], steps: Int, frame: Double = 16) throws(CaseFailure) {
        try panel.frame(Dictionary(uniqueKeysWithValues: from.enumerated().map { ($0.offset, $0.element) }))
        for step in 1...steps {
            page.settle(milliseconds: frame, alongside: subscriber)
            let t = Double(step) / Double(steps)
            let spots = zip(from, to).map { Spot($0.x + ($1.x - $0.x) * t, $0.y + ($1.y - $0.y) * t) }
            try panel.frame(Dictionary(uniqueKeysWithValues: spots.enumerated().map { ($0.offset, $0.element) }))
        }
    }

    /// Reads the page until no input event has arrived for a second (at most 20 s): what a
    /// stimulus caused has all arrived before the next one.
    func quiesce() {
        let deadline = monotonicMicroseconds() + 20_000_000
        var count = page.events.count
        while monotonicMicroseconds() < deadline {
            page.settle(milliseconds: 1000, alongside: subscriber)
            if page.events.count == count { return }
            count = page.events.count
        }
    }

    /// A tap until one reaches the page as a touch: the compositor opens a new device (or the
    /// daemon's clone) some time after it appears, and touches before that are lost; through
    /// Xwayland, after the page loaded again, the first touches reached it as mouse events
    /// only or not at all (a finger held 90 s gave no event), and later ones as touches.
    /// A probe that reached the page is over once its click came too: Chromium clicks after
    /// the touchend, and on a busy host that click came more than the settling second later,
    /// into the next case's tap. Each try taps 3 % of the width left of the one before
    /// (`Spot.probeTry`): taps at one point every 20 s are what touch hygiene's `phantom =
    /// "suppress"` learns as a ghost series (from the fourth on, they are dropped), so a probe
    /// that retried in place beside the guide's hygiene block would defeat itself on a slow
    /// host.
    /// `asMouse`: the panel's touches reach the page as a mouse (`app-input = "pointer"`), so
    /// a probe has reached it with its click alone.
    func probe(_ what: String, attempts: Int = 10, asMouse: Bool = false) throws(CaseFailure) {
        for attempt in 0..<attempts {
            let mark = page.events.count
            try tap(Spot(0.85, 0.85).probeTry(attempt))
            let reached: Void? = try? page.wait("a probe tap", timeout: 20, alongside: subscriber) {
                let inputs = page.inputs(since: mark)
                return (asMouse || inputs.contains { $0.name == "touchend" }) && inputs.contains { $0.name == "click" }
            }
            if reached != nil {
                quiesce()
                return
            }
        }
        throw CaseFailure("no tap on \(what) reached the page in \(attempts) tries; \(page.recent)")
    }

    /// A tap at `spot` after which nothing else is played: the index of its first event in
    /// the page's log (the first DOM input event at its point; events before it came from
    /// what was played before). Waits for its `touchend`.
    func markerTap(_ spot: Spot) throws(CaseFailure) -> Int {
        let mark = page.events.count
        try tap(spot)
        var first: Int?
        try page.wait("the marker tap at (\(spot.x), \(spot.y))", timeout: Self.patience, alongside: subscriber) {
            // Its first event: Chromium dispatches the pointerdown before the touchstart, and
            // through Xwayland a mouse pointermove comes first.
            first = page.events.indices.dropFirst(mark).first { index in
                let event = page.events[index]
                guard event.isInput else { return false }
                return offset(event.x ?? event.changed?.first?.x, event.y ?? event.changed?.first?.y, from: spot) <= tolerance
            }
            guard let first else { return false }
            return page.events[first...].contains { $0.name == "touchend" }
        }
        quiesce()
        return first!
    }

    // MARK: cases

    /// Each tap of `spots` (default `tapSpots`): exactly one touchstart, one touch pointerdown
    /// and one click, each within `limit` (default `tolerance`) of the played point, and no
    /// context menu. Returns the mouse events not made from a touch (noted).
    @discardableResult
    func tapsClick(at spots: [Spot]? = nil, within limit: Double? = nil) throws(CaseFailure) -> [String] {
        var worst = 0.0
        var emulated: [String] = []
        for spot in spots ?? tapSpots {
            let mark = try clickingTap(spot)
            let inputs = page.inputs(since: mark)
            worst = max(worst, try expectOneTap(inputs, at: spot, "the tap", within: limit))
            emulated += inputs.filter { $0.fromTouch == false }.map(\.summary)
        }
        let turned = screenRotation.map { " (screen-oriented clone, the screen turned \($0.rawValue)°)" } ?? ""
        say("  NOTE: \(prefix): the largest offset of a tap's touchstart, pointerdown or click\(turned): \(worst) CSS px")
        if !emulated.isEmpty { say("  NOTE: \(prefix): mouse events not made from a touch: \(emulated)") }
        return emulated
    }

    /// A tap at `spot`, waited for until its click reached the page and the page is quiet;
    /// returns the page's event count before it (where the tap's events begin).
    @discardableResult
    func clickingTap(_ spot: Spot) throws(CaseFailure) -> Int {
        let mark = page.events.count
        try tap(spot)
        try page.wait("the click of the tap at (\(spot.x), \(spot.y))", timeout: Self.patience, alongside: subscriber) {
            page.inputs(since: mark).contains { $0.name == "click" }
        }
        quiesce()
        return mark
    }

    /// `inputs` are one tap at `spot`: exactly one touchstart, one touch pointerdown and one
    /// click, each within `limit` (default `tolerance`) of the point, and no context menu.
    /// Returns the largest offset, in CSS pixels. `what` names the stimulus in a failure.
    func expectOneTap(_ inputs: [PageEvent], at spot: Spot, _ what: String, within limit: Double? = nil) throws(CaseFailure)
        -> Double
    {
        let starts = inputs.filter { $0.name == "touchstart" }
        let downs = inputs.filter { $0.name == "pointerdown" && $0.kind == "touch" }
        let clicks = inputs.filter { $0.name == "click" }
        let place = "\(what) at (\(spot.x), \(spot.y)), CSS \(expected(spot))"
        try expect(
            starts.count == 1 && downs.count == 1 && clicks.count == 1 && !inputs.contains { $0.name == "contextmenu" },
            "\(place): the page got \(describe(inputs))")
        var worst = 0.0
        for (label, x, y, whole) in [
            ("touchstart", starts[0].changed?.first?.x, starts[0].changed?.first?.y, false),
            ("pointerdown", downs[0].x, downs[0].y, false), ("click", clicks[0].x, clicks[0].y, true),
        ] {
            let off = offset(x, y, from: spot, whole: whole)
            worst = max(worst, off)
            try expect(off <= (limit ?? tolerance), "\(place): its \(label) is at (\(x ?? .nan), \(y ?? .nan)), \(off) px off")
        }
        return worst
    }

    /// A drag from 80 % to 30 % of the height: the page gets it whole (its touchstart where
    /// it began, its touchend where it ended) and scrolls, and nothing clicks. How far
    /// Chromium scrolls is its own timing (on a busy host it began scrolling late, once after
    /// 93 px of a 360 px drag), so the verdict is that it scrolled, not how far.
    func dragScrolls() throws(CaseFailure) {
        try page.reset(alongside: subscriber)
        let mark = page.events.count
        let (from, to) = (Spot(0.5, 0.8), Spot(0.5, 0.3))
        try move(from: [from], to: [to], steps: 20)
        try panel.lift()
        try page.wait("the drag's scrollend", timeout: Self.patience, alongside: subscriber) {
            page.events(since: mark).contains { $0.name == "scrollend" }
        }
        quiesce()
        let state = try page.state(alongside: subscriber)
        let inputs = page.inputs(since: mark)
        for (name, spot) in [("touchstart", from), ("touchend", to)] {
            let touch = inputs.first { $0.name == name }?.changed?.first
            try expect(
                offset(touch?.x, touch?.y, from: spot) <= tolerance,
                "the drag's \(name) is not at \(expected(spot)): \(describe(inputs))")
        }
        try expect((state.sy ?? 0) > 0, "the page is not scrolled after a 360 px drag: \(describe(inputs))")
        try expect(!inputs.contains { $0.name == "click" || $0.name == "contextmenu" }, "the drag clicked: \(describe(inputs))")
        try page.reset(alongside: subscriber)
    }

    /// Waits until the page's gestured-web client is connected to the current daemon (its
    /// last connection event since the daemon started is a hello).
    func awaitPageClient() throws(CaseFailure) {
        try page.wait("the page's gestured-web client connected to the daemon", timeout: Self.patience, alongside: subscriber) {
            page.events(since: daemonMark).last { ["gestured-hello", "bridge-close"].contains($0.name) }?.name == "gestured-hello"
        }
    }

    func reservedSwipe() throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        try awaitPageClient()
        _ = subscriber.drain(quiet: 0.3)
        let mark = page.events.count
        try panel.swipeDownFromTopEdge { page.settle(milliseconds: 12, alongside: subscriber) }
        let swipe = try subscriber.gestures(until: "a swipe from the exit edge") { $0.gesture == .swipe && $0.phase == .ended }.last!
        try expect(swipe.region == "exit-edge", "the subscriber's swipe came from region \(swipe.region ?? "null")")
        try page.wait("the swipe through gestured-web", timeout: Self.patience, alongside: subscriber) {
            page.events(since: mark).contains { $0.name == "gestured" && $0.gesture == "swipe" && $0.phase == "ended" }
        }
        let received = page.events(since: mark).first { $0.name == "gestured" && $0.gesture == "swipe" }!
        try expect(received.region == "exit-edge", "the page's swipe came from region \(received.region ?? "null")")
        let marker = try markerTap(Spot(0.65, 0.65))
        let leaked = page.events[mark..<marker].filter(\.isInput)
        try expect(leaked.isEmpty, "the page got DOM events from the reserved swipe: \(describe(leaked))")
    }

    /// A two-finger spread in the middle: the page's input events and its state after.
    /// `zooms`: whether the page is to zoom (how long its scale is watched, below).
    func pinch(zooms: Bool) throws(CaseFailure) -> (inputs: [PageEvent], state: PageEvent) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        let before = try page.reset(alongside: subscriber)
        try expect(before.scale == 1, "the page is at scale \(before.scale ?? 0) before the pinch")
        _ = subscriber.drain(quiet: 0.3)
        let mark = page.events.count
        try move(from: [Spot(0.42, 0.55), Spot(0.58, 0.55)], to: [Spot(0.2, 0.55), Spot(0.8, 0.55)], steps: 16, frame: 20)
        try panel.lift()
        try subscriber.gestures(until: "the pinch's end") { $0.gesture == .pinch && ($0.phase == .ended || $0.phase == .cancelled) }
        try page.wait("the pinch's last lift", timeout: Self.patience, alongside: subscriber) {
            page.inputs(since: mark).contains { ($0.name == "touchend" || $0.name == "touchcancel") && $0.down == 0 }
        }
        quiesce()
        // Chromium applies a pinch's zoom after the touches' events, on its compositor: on a
        // busy host seconds later. The scale is asked for until it changes: a zoom that must
        // come is waited for as long as any page event (`patience`); one that must not is
        // looked for during 3 s, so a slow host can only miss that failure, never invent
        // one. Either way a late zoom is not left on the page for the cases after it.
        var state = try page.state(alongside: subscriber)
        let deadline = monotonicMicroseconds() + UInt64((zooms ? Self.patience : 3) * 1_000_000)
        while state.scale == 1, monotonicMicroseconds() < deadline {
            page.settle(milliseconds: 200, alongside: subscriber)
            state = try page.state(alongside: subscriber)
        }
        let inputs = page.inputs(since: mark)
        // A pinch zoom is undone only by loading the page again.
        if state.scale != 1 {
            try page.reload(alongside: subscriber)
            try probe("the page loaded again")
        }
        return (inputs, state)
    }

    /// A finger resting 1.5 s on a word, then a marker tap elsewhere: the page's events
    /// before the marker, and the subscriber's long press.
    func longPress() throws(CaseFailure) -> (before: [PageEvent], selected: String, longPress: GestureMessage) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        try page.reset(alongside: subscriber)
        _ = subscriber.drain(quiet: 0.3)
        let mark = page.events.count
        try panel.frame([0: Spot(0.04, 0.5)])
        page.settle(milliseconds: 1500, alongside: subscriber)
        try panel.lift()
        let longPress = try subscriber.gestures(until: "the long press") { $0.gesture == .longPress }.last!
        quiesce()
        // Asked of the page rather than read from its selectionchange events, which on a
        // busy host may come after the marker tap.
        let selected = try page.state(alongside: subscriber).selection ?? ""
        let marker = try markerTap(Spot(0.65, 0.65))
        let before = Array(page.events[mark..<marker])
        try page.reset(alongside: subscriber)
        return (before, selected, longPress)
    }

    /// `moved`: how far the finger moves after its touch-down (a fraction of the width)
    /// before the kill: with `app-long-press = false` a finger reaches the page only once it
    /// moved beyond the tap slop.
    func killWithFingerDown(moved: Double = 0.01) throws(CaseFailure) {
        do {
            try killWithFingerResting(moved: moved)
        } catch {
            // A finger left down would keep the next daemon from grabbing the panel.
            try? panel.lift()
            throw error
        }
    }

    private func killWithFingerResting(moved: Double) throws(CaseFailure) {
        guard let running = daemon else { throw CaseFailure("gestured is not running") }
        let mark = page.events.count
        try panel.frame([0: Spot(0.6, 0.6)])
        page.settle(milliseconds: 30, alongside: subscriber)
        try panel.frame([0: Spot(0.6 + moved, 0.6)])
        try page.wait("the finger's touchstart", timeout: Self.patience, alongside: subscriber) {
            page.inputs(since: mark).contains { $0.name == "touchstart" }
        }
        running.signal(SIGKILL)
        _ = waitForExit(running.pid, timeout: 15)
        daemon = nil
        subscriber = nil
        try page.wait("the finger's lift after SIGKILL", timeout: Self.patience, alongside: subscriber) {
            page.inputs(since: mark).contains { ($0.name == "touchend" || $0.name == "touchcancel") && $0.down == 0 }
        }
        try panel.lift()
        quiesce()
        try page.reset(alongside: nil)
        try restartDaemon()
        let tap = page.events.count
        try self.tap(Spot(0.4, 0.4))
        try page.wait("a tap's click after gestured came back", timeout: Self.patience, alongside: subscriber) {
            page.inputs(since: tap).contains { $0.name == "click" }
        }
        quiesce()
    }

    // MARK: the daemon

    func writeConfig(_ text: String) throws(CaseFailure) {
        guard FileManager.default.createFile(atPath: configPath, contents: Data(text.utf8)) else {
            throw CaseFailure("cannot write \(configPath)")
        }
    }

    /// Starts gestured with `config`, subscribes, and waits until the page takes touches
    /// from the panel's clone (`asMouse`: clicks from its pointer).
    func startDaemon(config: String, hidingDisplay: Bool = false, asMouse: Bool = false) throws(CaseFailure) {
        daemon?.stop()
        daemon = nil
        try writeConfig(config)
        try restartDaemon(hidingDisplay: hidingDisplay, asMouse: asMouse)
    }

    /// Starts gestured with the configuration written last (`hidingDisplay`: where it cannot
    /// read the display's power, `startKioskDaemon`; `asMouse`: as `probe`'s).
    func restartDaemon(hidingDisplay: Bool = false, asMouse: Bool = false) throws(CaseFailure) {
        daemonMark = page.events.count
        sessionLogMark = fileSize(compositor.logPath)
        let started = try startKioskDaemon(
            cases, config: configPath, panels: panels, pumping: page, hidingDisplay: hidingDisplay, socketGroup: socketGroup)
        daemon = started.daemon
        subscriber = started.subscriber
        let touched = panel
        for other in panels {
            panel = other
            try probe("\(other.name) through \(asMouse ? "its pointer" : "its clone")", asMouse: asMouse)
        }
        panel = touched
        _ = started.subscriber.drain(quiet: 0.3)
    }
}

/// Page events in words, for failure messages.
func describe(_ events: some Collection<PageEvent>) -> String {
    "[" + events.map(\.summary).joined(separator: "; ") + "]"
}
