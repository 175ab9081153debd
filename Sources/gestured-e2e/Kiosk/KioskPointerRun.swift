import Foundation
import GestureTestSupport

/// `app-input = "pointer"` in a real kiosk session: gestured's pointer device read by the
/// compositor (libinput calls it a mouse) and its clicks delivered to a client, an X11 one
/// through the compositor's Xwayland (xev) or a Wayland one (wev), under cage, sway and
/// labwc. Twenty long presses must reach the client as exactly twenty right clicks (X's
/// button 3) and no left-button press, and a tap as one left click. The verdict is what
/// the client printed.
final class KioskPointerRun {
    let kind: CompositorKind
    let cases: KioskCases
    let program: KeyboardClientLog.Program
    var prefix: String { "kiosk [\(kind.rawValue)+\(program.rawValue)]: mouse emulation" }
    var through: String { program == .xev ? "xev through Xwayland" : "wev (Wayland)" }

    static let panelName = "\(KioskCases.namePrefix) pointer ELAN Touchscreen"
    static let longPresses = 20

    init(kind: CompositorKind, cases: KioskCases, program: KeyboardClientLog.Program) {
        self.kind = kind
        self.cases = cases
        self.program = program
    }

    func run(_ harness: Harness) {
        harness.run(
            "\(prefix): 20 long presses reach \(through) as exactly 20 right clicks (button 3) and no left-button press; a tap as one left click"
        ) { try clicks() }
    }

    private func clicks() throws {
        let work = cases.work
        let config = "\(work)/pointer-gestured.toml"
        let socket = "\(work)/pointer.sock"
        guard
            FileManager.default.createFile(
                atPath: config,
                contents: Data(
                    """
                    [daemon]
                    log-level = "info"

                    [[device]]
                    match-name = "\(Self.panelName)"
                    pass-through = true
                    app-input = "pointer"

                    [[device]]
                    match-name = "*"
                    enabled = false

                    """.utf8))
        else { throw CaseFailure("cannot write \(config)") }
        let panel = try TouchPanel(descriptionFile: cases.elanDescription, name: Self.panelName)
        defer { panel.unplug() }
        let daemon = try DaemonProcess(
            executable: cases.gestured, config: config, socketPath: socket, logPath: "\(work)/pointer-gestured.log")
        defer { daemon.stop() }
        let subscriber = try Subscriber(socketPath: socket)
        let hello = try subscriber.subscribe()
        if !hello.devices.contains(where: { $0.name == panel.name }) { try awaitDevice(subscriber, panel.name, .added) }
        let client = try ButtonClientLog(program, fifo: "\(work)/pointer-\(program.rawValue)-\(kind.rawValue).fifo")
        let compositor = try Compositor(
            kind, setup: CompositorSetup(fillOutput: true), client: client, name: "\(kind.rawValue)-pointer-\(program.rawValue)",
            work: work,
            output: Self.output(under: kind))
        defer { compositor.stop() }
        do {
            try probe(panel, client, subscriber)
            let mark = client.events.count
            for index in 0..<Self.longPresses {
                let spot = Spot(0.3 + 0.04 * Double(index % 10), 0.4 + 0.1 * Double(index / 10))
                try panel.frame([0: spot])
                _ = try subscriber.gestures(until: "long press \(index + 1)'s long-press began", timeout: 60) {
                    $0.device == panel.name && $0.gesture == .longPress && $0.phase == .began
                }
                // Lifted only once the client has the right click: it came while the finger was down.
                try client.wait("long press \(index + 1)'s button-3 press", timeout: 60, alongside: subscriber) {
                    client.presses(3, since: mark) > index
                }
                try panel.lift()
                _ = try subscriber.gestures(until: "long press \(index + 1)'s press ended", timeout: 60) {
                    $0.device == panel.name && $0.gesture == .press && ($0.phase == .ended || $0.phase == .cancelled)
                }
            }
            client.settle(milliseconds: 1000, alongside: subscriber)
            let right = (client.presses(3, since: mark), client.releases(3, since: mark))
            let left = (client.presses(1, since: mark), client.releases(1, since: mark))
            try expect(
                right == (Self.longPresses, Self.longPresses) && left == (0, 0),
                "for \(Self.longPresses) long presses \(program.rawValue) got button 3 pressed \(right.0), released \(right.1) times, button 1 pressed \(left.0), released \(left.1) times; \(client.recent)"
            )
            let others = client.events.dropFirst(mark).filter { $0.button != 1 && $0.button != 3 }
            try expect(others.isEmpty, "other buttons: \(others)")
            let tapMark = client.events.count
            try panel.tap([Spot(0.5, 0.5)], hold: 60)
            let tap = try subscriber.gestures(until: "the tap's press ended", timeout: 60) {
                $0.device == panel.name && $0.gesture == .press && ($0.phase == .ended || $0.phase == .cancelled)
            }
            try requireTapStimulus(tap, meant: 60)
            try client.wait("the tap's button-1 release", timeout: 60, alongside: subscriber) { client.releases(1, since: tapMark) >= 1 }
            client.settle(milliseconds: 500, alongside: subscriber)
            try expect(
                client.presses(1, since: tapMark) == 1 && client.presses(3, since: tapMark) == 0,
                "a tap gave \(Array(client.events.dropFirst(tapMark)))")
            say(
                "  NOTE: \(prefix): \(program.rawValue) got \(right.0) button-3 clicks and \(left.0) button-1 presses for \(Self.longPresses) long presses"
            )
        } catch {
            say("gestured log: \(tail(daemon.logPath, lines: 15))")
            say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 10))")
            throw error
        }
    }

    /// Where the compositor draws: cage 0.1.4 on the headless (pixman) output fails its
    /// output test on every frame once the seat has a pointer ("Basic output test failed"),
    /// and wev there got the clicks in one run of two; on the GPU's output (DRM) every run
    /// passed. sway and labwc draw headless.
    static func output(under kind: CompositorKind) -> KioskStack.Output {
        kind == .cage ? .drm : .headless
    }

    /// Where the probe's first try taps (each further one 3 % of the width left of the one
    /// before, `Spot.probeTry`): none of them at the output's middle. cage 0.1.4 gives a
    /// surface the pointer only when the pointer moves: it starts with its cursor at the
    /// middle, and a tap where the cursor already is moves nothing, so before the first move
    /// onto the client its clicks reach no one (with `WAYLAND_DEBUG=server`, taps at the
    /// middle gave Xwayland's `wl_pointer` no event at all, and one 2 px beside it brought
    /// `enter` and its click; a probe repeated at one point after a first tap that came too
    /// early was lost the same way). A finger lands on the very unit of the pointer's 32767
    /// on each axis where the last one did practically never; a test that taps one point
    /// does so every time.
    static let probeStart = Spot(0.45, 0.55)

    /// Taps until one reaches the client as a button-1 click: the compositor opens the
    /// pointer device some time after it appears, and clicks before that are lost.
    private func probe(_ panel: TouchPanel, _ client: ButtonClientLog, _ subscriber: Subscriber) throws(CaseFailure) {
        for attempt in 0..<3 {
            let mark = client.events.count
            try panel.tap([Self.probeStart.probeTry(attempt)], hold: 60)
            let reached: Void? = try? client.wait("a probe tap's click", timeout: 20, alongside: subscriber) {
                client.releases(1, since: mark) >= 1
            }
            if reached != nil {
                client.settle(milliseconds: 500, alongside: subscriber)
                return
            }
        }
        throw CaseFailure("no tap reached \(program.rawValue) as a click in 3 tries; \(client.recent)")
    }
}
