import Foundation
import GestureTestSupport
import Glibc
import SystemCalls

/// The `keys` actions of `gesturectl actions` in a real kiosk session: the runner starts as
/// the kiosk user inside the compositor's session, as docs/kiosk.md tells an operator
/// (sway: an `exec` line of its configuration; labwc: an autostart line; cage: beside the
/// app in cage's command), with only the session's environment and no access to
/// `/dev/uinput`. A tap must reach the client as the chord `KEY_LEFTCTRL+KEY_R`: `r` pressed
/// and released with Control held, then Control released. Under sway and labwc the default
/// `wayland` keyboard types (wtype, the virtual-keyboard protocol) into wev; under cage
/// (0.1.4 lacks that protocol) the `x11` keyboard types (xdotool, XTEST through cage's
/// Xwayland) into xev, an X11 client as the guide's cage recipe runs Chromium. The VM has
/// no keyboard: under `wayland` the seat has one only because the runner holds one from its
/// start, and the case waits for the client to have bound it before the tap. The verdict is
/// what the client printed.
final class KioskKeysRun {
    let kind: CompositorKind
    let cases: KioskCases
    var prefix: String { "kiosk [\(kind.rawValue)+\(program.rawValue)]: keys" }
    /// The keyboard the runner types with, and the client that reads it, per compositor.
    /// Wayland's virtual keyboard under sway and labwc; X11 through Xwayland under cage.
    var keyboard: String { typesOnWayland ? "wayland" : "x11" }
    var program: KeyboardClientLog.Program { typesOnWayland ? .wev : .xev }
    var typesOnWayland: Bool {
        switch kind {
        case .sway, .labwc, .raspios: true
        case .cage, .cage2: false
        }
    }

    static let panelName = "\(KioskCases.namePrefix) keys ELAN Touchscreen"

    init(kind: CompositorKind, cases: KioskCases) {
        self.kind = kind
        self.cases = cases
    }

    func run(_ harness: Harness) {
        harness.run(
            "\(prefix): gesturectl actions runs in the session as the kiosk user; a tap types KEY_LEFTCTRL+KEY_R (keyboard \(keyboard)) and the client gets r with Control held"
        ) { try tapTypesAChord() }
    }

    private func tapTypesAChord() throws(CaseFailure) {
        let work = cases.work
        let actions = "\(work)/keys-actions.toml"
        let config = "\(work)/keys-gestured.toml"
        let socket = "\(work)/keys.sock"
        let log = "\(work)/keys-gesturectl-\(kind.rawValue).log"
        // The runner, as the kiosk user, writes its log here: the file must be its to write.
        guard FileManager.default.createFile(atPath: log, contents: nil, attributes: [.posixPermissions: 0o666]) else {
            throw CaseFailure("cannot create \(log)")
        }
        try writeFile(
            """
            keyboard = "\(keyboard)"

            [[action]]
            gesture = "tap"
            device = "\(Self.panelName)"
            keys = ["KEY_LEFTCTRL+KEY_R"]

            """, to: actions)
        // The socket's group is the kiosk user's (an operator adds the user to `gestured`).
        try writeFile(
            """
            [daemon]
            log-level = "info"
            socket-group = "nogroup"

            [[device]]
            match-name = "\(Self.panelName)"

            [[device]]
            match-name = "*"
            enabled = false

            """, to: config)
        let panel = try TouchPanel(descriptionFile: cases.elanDescription, name: Self.panelName)
        let daemon = try DaemonProcess(executable: cases.gestured, config: config, socketPath: socket, logPath: "\(work)/keys-gestured.log")
        defer { daemon.stop() }
        let subscriber = try Subscriber(socketPath: socket)
        let hello = try subscriber.subscribe()
        if !hello.devices.contains(where: { $0.name == panel.name }) { try awaitDevice(subscriber, panel.name, .added) }

        // As docs/kiosk.md has it, with the test's actions file and socket.
        let runner = "\(cases.gesturectl) actions --config \(actions) --socket \(socket) > \(log) 2>&1"
        var setup = CompositorSetup(fillOutput: true)
        let fifo = "\(work)/keys-\(program.rawValue)-\(kind.rawValue).fifo"
        let client: KeyboardClientLog
        switch kind {
        case .sway:
            setup.configLines = ["exec \(runner)"]
            client = try KeyboardClientLog(program, fifo: fifo, before: nil)
        case .labwc, .raspios:
            setup.configLines = ["\(runner) &"]
            client = try KeyboardClientLog(program, fifo: fifo, before: nil)
        case .cage, .cage2:
            client = try KeyboardClientLog(program, fifo: fifo, before: "\(runner) &")
        }
        let compositor = try Compositor(kind, setup: setup, client: client, name: "\(kind.rawValue)-keys", work: work)
        defer { compositor.stop() }

        let started = try awaitLogLine(log, containing: "the 'keys' actions type through the session's display", timeout: 60)
        if typesOnWayland {
            try expect(started.contains(compositor.runtimeDirectory), "the runner found another session: \(started)")
        }
        _ = try awaitLogLine(log, containing: "connected to gestured", timeout: 30)
        // The runner holds a keyboard on the seat (the VM has none of its own), so the client
        // binds one before the tap: a chord then reaches it whole, however slow the client.
        try client.wait("a keyboard with the focus (the runner's, held from its start)", timeout: 30, alongside: subscriber) {
            client.hasKeyboard
        }
        _ = subscriber.drain(quiet: 0.45)
        let mark = client.events.count
        try panel.tap([Spot(0.5, 0.5)], hold: 60)
        _ = try subscriber.gestures(until: "the tap", timeout: 10) { $0.device == panel.name && $0.gesture == .tap }
        func isRelease(_ event: KeyboardClientLog.Event, of sym: String) -> Bool {
            if case .key(sym, false, _) = event { true } else { false }
        }
        func isControlRelease(_ event: KeyboardClientLog.Event) -> Bool {
            event == .modifiers([]) || isRelease(event, of: "Control_L")
        }
        try client.wait("r released, then Control", timeout: 30, alongside: subscriber) {
            let since = client.events[min(mark, client.events.count)...]
            guard let release = since.firstIndex(where: { isRelease($0, of: "r") }) else { return false }
            return since[release...].contains(where: isControlRelease)
        }
        let events = Array(client.events[mark...])
        guard let press = events.firstIndex(where: { if case .key("r", true, _) = $0 { true } else { false } }),
            let release = events.firstIndex(where: { isRelease($0, of: "r") }), press < release
        else {
            throw CaseFailure("no press of r before its release: \(events); its last lines: \(client.recentLines); runner: \(tail(log))")
        }
        try expect(events[press] == .key(sym: "r", pressed: true, held: ["Control"]), "r went down as \(events[press]); \(events)")

        _ = try awaitLogLine(log, containing: "exited with status 0")
        say("\(prefix): the client got \(events)")
    }
}
