// gestured-e2e: the end-to-end tier. Runs inside the VM (vm/test.sh): creates
// virtual touch devices through uinput from real corpus descriptions, starts the real
// `gestured run`, subscribes over its socket like any client, drives touches through the
// kernel and checks what arrives. Prints `PASS name` / `FAIL name: reason` per case, the
// benchmark figures as `BENCH …` lines, and ends with `N passed, N failed`; exits 1 on
// any failure, 77 (skip) where there is no uinput.
import ArgumentParser
import Foundation
import GestureClient
import GestureTestSupport
import Glibc
import SystemCalls

/// The driver's command line (swift-argument-parser, as the other executables).
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured-e2e",
        abstract: "The end-to-end tier: virtual touch devices through uinput, the real gestured, checked as a client sees it.")

    @Option(help: ArgumentHelp("The shared recordings.", valueName: "DIR"))
    var corpus = "/work/shared/corpus"

    @Option(help: ArgumentHelp("The daemon binary (default: gestured beside this program).", valueName: "PATH"))
    var gestured: String?

    @Option(help: ArgumentHelp("The client binary, for the actions cases (default: gesturectl beside this program).", valueName: "PATH"))
    var gesturectl: String?

    @Option(help: ArgumentHelp("Where the socket, configuration and logs go; not 9p.", valueName: "DIR"))
    var work = "/run/gestured-e2e"

    @Option(
        help: ArgumentHelp("Run only the cases whose name contains one of these (the setup cases always run).", valueName: "TEXT,..."),
        transform: { $0.split(separator: ",").map(String.init) })
    var only: [String] = []

    @Option(help: "Frames per benchmark run.")
    var frames = 2000

    @Option(help: ArgumentHelp("Milliseconds between benchmark frames.", valueName: "MS"))
    var interval = 4.0

    @Option(
        name: .customLong("clients"), help: "Subscribers in the many-clients benchmark, run at --interval and again at --many-interval.")
    var manyClients = 50

    @Option(help: ArgumentHelp("Milliseconds between frames in the second many-clients run.", valueName: "MS"))
    var manyInterval = 20.0

    @Option(help: "Frames per many-clients run (× 2 events × clients samples).")
    var manyFrames = 500

    @Option(help: "Frames per pass-through latency run (the daemon's and the bare forwarder's).")
    var passThroughFrames = 300

    @Option(
        help: ArgumentHelp(
            "Run the kiosk tier instead: gestured between a uinput touchscreen and these Wayland compositors, each showing the clients of --kiosk-clients (COMPOSITOR-wake: only its wake stack).",
            valueName: "cage,sway,labwc,raspios,cage2,cage2-wake"),
        transform: { text in
            try text.split(separator: ",").map {
                guard KioskRoot.selectors.contains(String($0)) else {
                    throw ValidationError("unknown compositor \($0): \(KioskRoot.selectors.joined(separator: ", "))")
                }
                return String($0)
            }
        })
    var kiosk: [String] = []

    @Option(
        help: ArgumentHelp(
            "The kiosk tier's clients: wev (every wl_touch event) and Chromium (the guide's recipe).", valueName: "wev,chromium"),
        transform: { text in
            try text.split(separator: ",").map {
                guard let client = KioskStack.Client(rawValue: String($0)) else {
                    throw ValidationError(
                        "unknown kiosk client \($0): \(KioskStack.Client.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return client
            }
        })
    var kioskClients: [KioskStack.Client] = KioskStack.Client.allCases

    @Option(
        help: ArgumentHelp("The bridge binary, for the kiosk tier's page (default: gestured-web beside this program).", valueName: "PATH"))
    var gesturedWeb: String?

    @Option(help: ArgumentHelp("The kiosk guide whose recipes the kiosk tier runs.", valueName: "PATH"))
    var kioskGuide = "docs/kiosk.md"

    @Option(help: ArgumentHelp("The kiosk tier's page (a directory with probe.html).", valueName: "DIR"))
    var kioskPage = "vm/kiosk-page"

    @Option(help: ArgumentHelp("The JS client the kiosk tier's page imports.", valueName: "PATH"))
    var jsClient = "web/gestured.js"

    @Option(help: "Frames per kiosk latency run (with and without gestured), --interval ms apart.")
    var kioskFrames = 300

    @Flag(
        help:
            "Run the kiosk tier's service cases instead (with --kiosk): gestured as a systemd service, its clone in the descriptor store, killed with a finger down (needs systemd as PID 1)."
    )
    var kioskUnderSystemd = false

    @Option(help: ArgumentHelp("The packaged unit whose restart and descriptor-store lines the kiosk service takes.", valueName: "PATH"))
    var packagedUnit = "systemd/gestured.service"

    @Option(
        name: .customLong("side-by-side"),
        help: ArgumentHelp(
            "Run the side-by-side latency benchmark instead, this many rounds: a bare evdev → socket forwarder, gestured with touch lines, gestured with gestures only, alternating.",
            valueName: "ROUNDS"))
    var sideBySideRounds = 0

    @Option(help: "Frames per side-by-side run, --interval ms apart.")
    var sideBySideFrames = 1600

    @Option(help: "Fingers circling in the side-by-side runs.")
    var fingers = 5

    @Option(
        help: ArgumentHelp(
            "Run the panel cases instead, on touchscreens made from these descriptions: each as the kernel reports it, its gestures through gestured, and pass-through to its clone.",
            valueName: "DESC,..."),
        transform: { $0.split(separator: ",").map(String.init) })
    var panels: [String] = []

    @Option(help: ArgumentHelp("Be the side-by-side benchmark's bare forwarder for this node (with --forward-socket).", valueName: "NODE"))
    var forward: String?

    @Option(help: ArgumentHelp("The bare forwarder's socket.", valueName: "PATH"))
    var forwardSocket = "/run/gestured-e2e/side-by-side.sock"

    /// `--gestured`, else the `gestured` beside this program.
    var gesturedPath: String { gestured ?? Self.besideThisProgram("gestured") }

    /// `--gestured-web`, else the `gestured-web` beside this program.
    var gesturedWebPath: String { gesturedWeb ?? Self.besideThisProgram("gestured-web") }

    /// `--gesturectl`, else the `gesturectl` beside this program.
    var gesturectlPath: String { gesturectl ?? Self.besideThisProgram("gesturectl") }

    /// This program itself (the side-by-side benchmark starts it again as the forwarder).
    var ownPath: String { Self.besideThisProgram("gestured-e2e") }

    private static func besideThisProgram(_ name: String) -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((me as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
    }
}

/// The daemon's configuration for the whole run: touchpads on, grab for the devices the
/// grab case makes; the slow-client policy and queue are the defaults, spelled out.
let configText = """
    [daemon]
    use-touchpads = true
    client-queue = 1024
    slow-client = "drop-oldest"
    log-level = "info"

    [[device]]
    match-name = "e2e grab *"
    grab = true

    # The pass-through cases run a daemon of their own for these.
    [[device]]
    match-name = "e2e pass-through *"
    enabled = false

    [[device]]
    match-name = "e2e forwarder *"
    enabled = false
    """

func main(_ options: Options) -> Int32 {
    if let node = options.forward { return runBareForwarder(node: node, socketPath: options.forwardSocket) }
    guard RegularFile.isAccessible(path: "/dev/uinput", mode: W_OK) else {
        say("SKIP: gestured-e2e needs a writable /dev/uinput (run it in the VM: vm/test.sh)")
        return 77
    }
    let harness = Harness(only: options.only)
    let started = monotonicMicroseconds()
    try? RegularFile.makeDirectory(path: options.work, mode: 0o755)
    if !options.kiosk.isEmpty {
        KioskCases(
            gestured: options.gesturedPath, gesturedWeb: options.gesturedWebPath, work: options.work,
            elanDescription: "\(options.corpus)/evemu-devices/touchscreens/ELAN Touchscreen.desc", compositors: options.kiosk,
            clients: options.kioskClients, guide: options.kioskGuide, page: options.kioskPage, jsClient: options.jsClient,
            frames: options.kioskFrames, interval: options.interval, underSystemd: options.kioskUnderSystemd,
            packagedUnit: options.packagedUnit
        ).run(harness)
        return finish(harness, started)
    }
    if options.sideBySideRounds > 0 {
        SideBySideCases(
            gestured: options.gesturedPath, work: options.work,
            elanDescription: "\(options.corpus)/evemu-devices/touchscreens/ELAN Touchscreen.desc", rounds: options.sideBySideRounds,
            frames: options.sideBySideFrames, interval: options.interval, fingers: options.fingers
        ).run(harness, ownPath: options.ownPath)
        return finish(harness, started)
    }
    if !options.panels.isEmpty {
        PanelCases(
            gestured: options.gesturedPath, work: options.work, descriptions: options.panels,
            passThroughFrames: options.passThroughFrames, interval: options.interval
        ).run(harness)
        return finish(harness, started)
    }
    let configPath = "\(options.work)/gestured.toml"
    guard FileManager.default.createFile(atPath: configPath, contents: Data(configText.utf8)) else {
        say("gestured-e2e: cannot write \(configPath)")
        return 1
    }
    let touchscreens = "\(options.corpus)/evemu-devices/touchscreens"
    let elanDescription = "\(touchscreens)/ELAN Touchscreen.desc"

    // Devices present before the daemon starts: it must find them at startup.
    var panels: [TouchPanel] = []
    var touchpad: TouchPanel?
    harness.run("uinput: virtual devices from the corpus descriptions", always: true) {
        panels = [
            try TouchPanel(descriptionFile: elanDescription),
            try TouchPanel(descriptionFile: "\(touchscreens)/N-Trig MultiTouch.desc"),
            try TouchPanel(descriptionFile: "\(touchscreens)/Atmel maXTouch Touchscreen.desc"),
        ]
        touchpad = try TouchPanel(descriptionFile: "\(options.corpus)/evemu-devices/touchpads/SynPS2 Synaptics TouchPad.lenovo-p50.desc")
        try expect(panels.map(\.touchProtocol) == [.slots, .protocolA, .slots], "protocols \(panels.map(\.touchProtocol.rawValue))")
        try expect(panels[2].description.reportedResolution == 0, "the Atmel description has a resolution")
    }
    guard panels.count == 3, let touchpad else { return finish(harness, started) }

    var daemon: DaemonProcess?
    harness.run("gestured run starts and reports READY=1", always: true) {
        daemon = try DaemonProcess(
            executable: options.gesturedPath, config: configPath, socketPath: "\(options.work)/gestured.sock",
            logPath: "\(options.work)/gestured.log")
    }
    guard let daemon else { return finish(harness, started) }
    var subscriber: Subscriber?
    harness.run("a client subscribes; hello lists the devices present at start (touchpad included: use-touchpads)", always: true) {
        let client = try Subscriber(socketPath: daemon.socketPath)
        let hello = try client.subscribe()
        subscriber = client
        try expect(hello.protocol == 1, "protocol \(hello.protocol)")
        let names = Set(hello.devices.map(\.name))
        let missing = (panels + [touchpad]).map(\.name).filter { !names.contains($0) }
        try expect(missing.isEmpty, "hello lacks \(missing); lists \(names.sorted())")
    }
    guard let subscriber else {
        say("gestured log: \(tail(daemon.logPath, lines: 20))")
        return finish(harness, started)
    }

    let swipes: [(from: Spot, to: Spot, direction: SwipeDirection)] = [
        (Spot(0.8, 0.5), Spot(0.3, 0.5), .left),
        (Spot(0.5, 0.8), Spot(0.5, 0.3), .up),
        (Spot(0.2, 0.5), Spot(0.7, 0.5), .right),
    ]
    for (panel, swipe) in zip(panels, swipes) {
        GestureCases(panel: panel, subscriber: subscriber, swipe: swipe).run(harness)
    }
    let touchpadCases = GestureCases(panel: touchpad, subscriber: subscriber, swipe: swipes[0])
    harness.run("touchpad tap [\(touchpad.name)]") { try touchpadCases.tap() }
    harness.run("touchpad drag [\(touchpad.name)]") { try touchpadCases.drag() }

    let live = LiveCases(daemon: daemon, subscriber: subscriber, elanDescription: elanDescription)
    live.hotPlug(harness)
    live.twoDevices(harness, panels[0], panels[2])
    live.grab(harness, control: panels[0])
    live.synDropped(harness, panels[0])
    live.lateLoop(harness, panels[0])
    ActionsCases(gesturectl: options.gesturectlPath, daemon: daemon, subscriber: subscriber, panel: panels[0], work: options.work).run(
        harness)

    let streaming = StreamingCases(daemon: daemon, subscriber: subscriber, panel: panels[0], frames: options.frames)
    streaming.benchmark(harness, clients: 1, interval: options.interval)
    streaming.slowSubscriber(harness)
    streaming.benchmark(harness, clients: options.manyClients, interval: options.interval, frames: options.manyFrames)
    streaming.benchmark(harness, clients: options.manyClients, interval: options.manyInterval, frames: options.manyFrames)

    // The recordings reuse these names: unplug ours first.
    for panel in panels + [touchpad] {
        panel.unplug()
        try? awaitDevice(subscriber, panel.name, .removed)
    }
    let hotPlugBroken =
        harness.failures.contains(LiveCases.hotPlugCaseNames("hot-plug").added)
        ? "needs hot-plug, which failed (see above)" : nil
    ReplayCases(daemon: daemon, corpus: options.corpus, subscriber: subscriber, hotPlugBroken: hotPlugBroken).run(harness)

    harness.run("the daemon is still running, and exits 0 on SIGTERM") {
        try expect(daemon.isRunning, "gestured exited with \(daemon.exited ?? -1): \(tail(daemon.logPath))")
        let status = daemon.stop()
        try expect(status == 0, "exit status \(status): \(tail(daemon.logPath))")
    }
    if harness.failed > 0 {
        say("gestured log (\(daemon.logPath)), last lines: \(tail(daemon.logPath, lines: 15))")
    }
    let passThrough = PassThroughCases(
        gestured: options.gesturedPath, work: options.work, elanDescription: elanDescription, frames: options.passThroughFrames,
        interval: options.interval
    )
    passThrough.run(harness)
    HygieneCases(passThrough: passThrough).run(harness)
    AppTouchCases(passThrough: passThrough).run(harness)
    MouseEmulationCases(passThrough: passThrough).run(harness)
    UnmatchedCases(gestured: options.gesturedPath, work: options.work, elanDescription: elanDescription).run(harness)
    // Last: the other cases must keep running without udev (hot-plug through inotify).
    UdevCases(
        gestured: options.gesturedPath, config: configPath, work: options.work,
        elanDescription: elanDescription, withoutUdevLog: daemon.logPath
    ).run(harness)
    return finish(harness, started)
}

func finish(_ harness: Harness, _ started: UInt64) -> Int32 {
    say("gestured-e2e: \(Double((monotonicMicroseconds() - started) / 100_000) / 10) s")
    say("\(harness.passed) passed, \(harness.failed) failed")
    return harness.failed > 0 ? 1 : 0
}

exit(main(Options.parseOrExit()))
