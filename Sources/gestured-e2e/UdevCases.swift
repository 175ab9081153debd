import Foundation
import GestureTestSupport
import Glibc
import SystemCalls

/// Hot-plug through udev: the daemon follows hot-plug with an sd-device monitor when udev
/// runs (`/run/udev/control` exists) and with inotify on /dev/input when it does not. The
/// VM has no udev of its own: these cases start the host's `systemd-udevd` (package
/// `udev`, installed by vm/setup.sh) in the guest, run a second `gestured run` beside it,
/// repeat the hot-plug cases, and stop udevd again. They run last, after the main daemon
/// (which ran without udev) has exited.
struct UdevCases {
    let gestured: String
    let config: String
    let work: String
    let elanDescription: String
    /// The main daemon's log: it ran without udev, so it must have chosen inotify.
    let withoutUdevLog: String

    static let control = udevControl
    static let label = "hot-plug via udev"
    static let withoutUdev = "without udev (no \(control)) gestured follows hot-plug through inotify"
    static let start = "udev: systemd-udevd starts, and a new gestured follows hot-plug through its udev monitor"
    static let stop = "udev: gestured exits 0 on SIGTERM, then systemd-udevd stops"
    static let calibration =
        "udev: a rule's LIBINPUT_CALIBRATION_MATRIX is applied (mirrored x) and gestured devices names udev as its source"
    /// A rule of the kind a hwdb entry or an installer writes, here for our device only:
    /// it mirrors x (x' = 1 − x).
    static let calibrationRule = "/run/udev/rules.d/70-e2e-calibration.rules"
    static let calibratedName = "e2e udev calibrated ELAN Touchscreen"

    func run(_ harness: Harness) {
        harness.run(UdevCases.withoutUdev) {
            let log = tail(withoutUdevLog, lines: 10_000)
            try expect(
                log.contains("following hot-plug") && log.contains("via=inotify"),
                "no \"following hot-plug … via=inotify\" in \(withoutUdevLog): \(tail(withoutUdevLog))")
        }
        let hotPlug = LiveCases.hotPlugCaseNames(UdevCases.label)
        guard [UdevCases.start, hotPlug.added, hotPlug.removed, UdevCases.calibration, UdevCases.stop].contains(where: harness.wants) else {
            return
        }
        try? RegularFile.makeDirectory(path: "/run/udev", mode: 0o755)
        try? RegularFile.makeDirectory(path: "/run/udev/rules.d", mode: 0o755)
        let rule = "KERNEL==\"event*\", ATTRS{name}==\"\(UdevCases.calibratedName)\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"-1 0 1 0 1 0\"\n"
        if let handle = fopen(UdevCases.calibrationRule, "w") {
            fputs(rule, handle)
            fclose(handle)
        }
        defer { RegularFile.remove(path: UdevCases.calibrationRule) }

        let udevLog = "\(work)/udevd.log"
        var udevd: pid_t?
        var daemon: DaemonProcess?
        var subscriber: Subscriber?
        harness.run(UdevCases.start, always: true) {
            udevd = try startUdevd(logPath: udevLog)
            let started = try DaemonProcess(
                executable: gestured, config: config, socketPath: "\(work)/gestured-udev.sock",
                logPath: "\(work)/gestured-udev.log")
            daemon = started
            let log = tail(started.logPath, lines: 10_000)
            try expect(
                log.contains("following hot-plug") && log.contains("via=udev"),
                "gestured did not choose udev: \(tail(started.logPath))")
            let client = try Subscriber(socketPath: started.socketPath)
            try client.subscribe()
            subscriber = client
        }
        if let daemon, let subscriber {
            LiveCases(daemon: daemon, subscriber: subscriber, elanDescription: elanDescription)
                .hotPlug(harness, label: UdevCases.label, deviceName: "e2e udev ELAN Touchscreen")
            harness.run(UdevCases.calibration) { try calibrated(daemon: daemon, subscriber: subscriber) }
        }
        harness.run(UdevCases.stop, always: true) {
            let status = daemon?.stop()
            let udevdStatus = udevd.map(stopUdevd)
            if harness.failures.contains(where: { $0.hasPrefix("udev") || $0.hasPrefix(UdevCases.label) }) {
                if let daemon { say("gestured (udev) log, last lines: \(tail(daemon.logPath, lines: 15))") }
                say("udevd log, last lines: \(tail(udevLog, lines: 25))")
            }
            if let status { try expect(status == 0, "gestured exit status \(status): \(daemon.map { tail($0.logPath) } ?? "")") }
            try expect(udevdStatus != -1, "systemd-udevd did not exit on SIGTERM (killed)")
        }
    }

    /// A device the rule calibrates: a tap at x = 0.2 is reported at x = 0.8; `gestured
    /// devices` shows the matrix and its source; the daemon logs it.
    private func calibrated(daemon: DaemonProcess, subscriber: Subscriber) throws {
        let mark = daemon.logSize
        let panel = try TouchPanel(descriptionFile: elanDescription, name: UdevCases.calibratedName)
        defer { panel.unplug() }
        try awaitDevice(subscriber, panel.name, .added)
        _ = subscriber.drain(quiet: 0.45)
        try panel.tap([Spot(0.2, 0.4)], hold: 60)
        let seen = try subscriber.gestures(until: "the tap", timeout: 10) { $0.device == panel.name && $0.gesture == .tap }
        guard let tap = seen.last else { throw CaseFailure("no tap") }
        try expect(
            distance(tap.location, Spot(0.8, 0.4)) < locationTolerance,
            "tap at \(describe(tap.location)); finger at (0.2, 0.4), mirrored by udev's matrix to (0.8, 0.4)")
        let logged = daemon.log(since: mark).contains {
            $0.contains("calibration") && $0.contains("source=udev") && $0.contains(panel.name)
        }
        try expect(logged, "the daemon did not log the udev calibration: \(daemon.log(since: mark).suffix(5))")
        let listing = "\(work)/gestured-devices.txt"
        let pid = try spawn(gestured, ["devices", "--config", config], logPath: "\(work)/gestured-devices.log", stdoutPath: listing)
        try expect(waitForExit(pid, timeout: 30) == 0, "gestured devices failed: \(tail("\(work)/gestured-devices.log"))")
        let text = tail(listing, lines: 10_000)
        let block = text.components(separatedBy: panel.devnode + "  ").dropFirst().first ?? ""
        try expect(
            block.contains("calibration: [-1 0 1 0 1 0] (from udev's LIBINPUT_CALIBRATION_MATRIX)"),
            "gestured devices does not show udev's matrix for \(panel.devnode): \(block.prefix(400))")
        panel.unplug()
        try awaitDevice(subscriber, panel.name, .removed)
    }
}
