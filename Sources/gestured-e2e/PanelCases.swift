import EvdevInput
import Foundation
import GestureClient
import GestureCore
import GestureTestSupport

/// Touchscreens described like a platform's panels (the Raspberry Pi displays' descriptions in
/// `vm/arm64/panels`, run on Debian's arm64 kernel by `vm/test-arm64-kernel.sh`): each is
/// created through uinput and must come out of the kernel as described; one `gestured run`
/// with the defaults then serves every panel's gestures to a subscriber; last, each panel is
/// passed through (`[[device]] pass-through`) with the e2e tier's reserved-region cases.
struct PanelCases {
    let gestured: String
    let work: String
    /// The description files (evemu `.desc`).
    let descriptions: [String]
    /// Frames of each pass-through latency run, `interval` ms apart.
    let passThroughFrames: Int
    let interval: Double

    /// Swipes, one per panel in turn.
    private static let swipes: [(from: Spot, to: Spot, direction: SwipeDirection)] = [
        (Spot(0.8, 0.5), Spot(0.3, 0.5), .left),
        (Spot(0.5, 0.8), Spot(0.5, 0.3), .up),
        (Spot(0.2, 0.5), Spot(0.7, 0.5), .right),
    ]

    func run(_ harness: Harness) {
        var panels: [TouchPanel] = []
        for path in descriptions {
            let file = (path as NSString).lastPathComponent
            harness.run(
                "panel \(file): uinput makes it, and the kernel reports the name, ids, codes, axes and properties described", always: true
            ) {
                let panel = try TouchPanel(descriptionFile: path)
                panels.append(panel)
                try expectAsDescribed(panel)
            }
        }
        guard panels.count == descriptions.count else { return }
        gestures(harness, panels)
        for (panel, description) in zip(panels, descriptions) {
            panel.unplug()
            PassThroughCases(
                gestured: gestured, work: work, elanDescription: description, frames: passThroughFrames, interval: interval,
                panelName: "e2e pass-through \(panel.name)", label: panel.name
            ).reservedRegion(harness)
        }
    }

    /// What the kernel reports of the panel's node equals its description (uinput on this
    /// kernel took every capability), and the description is a direct-touch multitouch screen.
    private func expectAsDescribed(_ panel: TouchPanel) throws {
        let described = panel.description
        let reported = try EvdevDevice(path: panel.devnode).description
        try expect(reported.name == described.name, "named \"\(reported.name)\"")
        try expect(
            [reported.bus, reported.vendor, reported.product, reported.version] == [
                described.bus, described.vendor, described.product, described.version,
            ], "ids \([reported.bus, reported.vendor, reported.product, reported.version])")
        // EV_SYN's codes aside: the kernel gives every device all of them.
        let reportedCodes = reported.codes.filter { $0.key != EV.syn }
        let describedCodes = described.codes.filter { $0.key != EV.syn }
        try expect(reportedCodes == describedCodes, "codes \(reportedCodes), described \(describedCodes)")
        try expect(reported.properties == described.properties, "properties \(reported.properties)")
        for (code, info) in described.absInfo {
            let axis = reported.absInfo[code]
            try expect(
                axis?.minimum == info.minimum && axis?.maximum == info.maximum && axis?.resolution == info.resolution,
                "axis \(code): \(String(describing: axis)), described \(info)")
        }
        try expect(described.hasProperty(INPUTPROP.direct), "the description lacks INPUT_PROP_DIRECT")
        try expect(described.hasSlots && described.isMultitouch, "the description is not a slotted multitouch device")
    }

    /// One daemon with the defaults; every panel's gestures reach its subscriber.
    private func gestures(_ harness: Harness, _ panels: [TouchPanel]) {
        let configPath = "\(work)/panels.toml"
        guard FileManager.default.createFile(atPath: configPath, contents: Data("[daemon]\nlog-level = \"info\"\n".utf8)) else {
            harness.fail("panels: the daemon's configuration", "cannot write \(configPath)")
            return
        }
        var daemon: DaemonProcess?
        var subscriber: Subscriber?
        harness.run("panels: gestured run starts, and its hello lists every panel as a touchscreen", always: true) {
            let started = try DaemonProcess(
                executable: gestured, config: configPath, socketPath: "\(work)/panels.sock", logPath: "\(work)/panels.log")
            daemon = started
            let client = try Subscriber(socketPath: started.socketPath)
            let hello = try client.subscribe()
            subscriber = client
            for panel in panels {
                let listed = hello.devices.first { $0.name == panel.name }
                try expect(listed?.kind == .touchscreen, "hello lists \"\(panel.name)\" as \(listed.map { "\($0.kind)" } ?? "nothing")")
            }
        }
        guard let daemon else { return }
        guard let subscriber else {
            say("gestured log (\(daemon.logPath)), last lines: \(tail(daemon.logPath, lines: 15))")
            daemon.stop()
            return
        }
        for (index, panel) in panels.enumerated() {
            GestureCases(panel: panel, subscriber: subscriber, swipe: Self.swipes[index % Self.swipes.count]).run(harness)
        }
        harness.run("panels: the daemon is still running, and exits 0 on SIGTERM") {
            try expect(daemon.isRunning, "gestured exited with \(daemon.exited ?? -1): \(tail(daemon.logPath))")
            let status = daemon.stop()
            try expect(status == 0, "exit status \(status): \(tail(daemon.logPath))")
        }
        if harness.failed > 0 { say("gestured log (\(daemon.logPath)), last lines: \(tail(daemon.logPath, lines: 15))") }
    }
}
