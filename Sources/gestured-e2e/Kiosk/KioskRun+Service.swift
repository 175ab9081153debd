import Foundation
import GestureTestSupport
import SystemCalls

/// The cases with wev under one compositor while gestured runs as a systemd service
/// (`KioskService`): the clone's uinput descriptor is in the service's descriptor store, so
/// a crash, a kill of every process of the unit and a watchdog timeout with a finger down
/// must each leave the client an `up` for every `down`, the clone the same device (its node
/// and its sysfs `inputN`: the compositor never saw it go) and a touch after the restart
/// working through it.
extension KioskRun {
    func runUnderService(_ harness: Harness) {
        harness.run(
            name("under systemd: gestured runs as a service; the clone's descriptor is in its store, no guard process; touches reach wev"),
            always: true
        ) {
            client = try WaylandClientLog(fifo: "\(cases.work)/wev-\(kind.rawValue)-service.fifo")
            compositor = try Compositor(kind, client: client, name: "\(kind.rawValue)-wev-service", work: cases.work)
            panel = try TouchPanel(descriptionFile: cases.elanDescription, name: KioskCases.panelName)
            try probe(panel, "\(panel.name) (read by the compositor itself)")
            try writeConfig(KioskCases.config())
            service = try KioskService(
                gestured: cases.gestured, config: configPath, socket: cases.daemonSocket, packagedUnit: cases.packagedUnit,
                work: cases.work)
            _ = try cloneNode(of: panel)
            try probe(panel, "\(panel.name) through its clone")
            let stored = try service!.storedDescriptors
            try expect(stored == 1, "\(KioskService.unit) holds \(stored) descriptors, not the clone's one")
            let processes = try service!.processes
            try expect(processes.count == 1, "\(KioskService.unit) has processes \(processes): a guard beside the daemon?")
        }
        guard compositor != nil, panel != nil else {
            compositor?.stop()
            return
        }
        defer {
            service?.stop()
            compositor.stop()
        }
        guard service != nil else {
            say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 10))")
            return
        }
        for death in KioskService.Death.allCases {
            harness.run(
                name(
                    "under systemd: \(death.what) with a finger down: the client gets an up for every down, the clone stays the same device, a touch after the restart reaches the client"
                )
            ) {
                try dieWithFingerDown(death)
            }
        }
        if harness.failures.contains(where: { $0.hasPrefix(name("under systemd")) }) {
            let journal = ((try? service?.journal) ?? []).suffix(15)
            say("journalctl -u \(KioskService.unit): \(journal.joined(separator: "\n  "))")
            say("\(kind.rawValue) log: \(tail(compositor.logPath, lines: 10))")
        }
    }

    /// A finger down on the panel (so on the clone and in the client), then the daemon
    /// killed the `death` way; systemd restarts it, and the new process takes the clone
    /// back from the store and lifts the finger on it. Then the finger lifts on the panel,
    /// the daemon takes the clone into use again, and a tap reaches the client.
    func dieWithFingerDown(_ death: KioskService.Death) throws(CaseFailure) {
        guard let service else { throw CaseFailure("gestured is not running") }
        let clone = try cloneNode(of: panel)
        let device = KioskService.sysfsDevice(of: clone)
        let restarts = try service.restarts
        let tookBack = try service.journalCount("took back the pass-through clone")
        let takenBack = try service.journalCount("pass-through clone taken back")
        let (id, mark) = try fingerDown()
        try service.kill(death)
        // The watchdog first waits out its interval.
        try expectReleased(id, since: mark, after: death.what, timeout: Double(KioskService.watchdogSeconds) + 20)
        try expect(client.down.isEmpty, "touches still down in the client after \(death.what): \(client.down.sorted())")
        try client.wait("systemd's restart", timeout: 30) { (try? service.restarts).map { $0 > restarts } ?? false }
        try expect(
            try service.journalCount("took back the pass-through clone") > tookBack,
            "the restarted daemon did not say it took the clone back: \((try? service.journal.suffix(5)) ?? [])")
        try expect(
            RegularFile.anythingExists(path: clone) && KioskService.sysfsDevice(of: clone) == device,
            "the clone changed: \(clone) is now \(KioskService.sysfsDevice(of: clone) ?? "gone") (was \(device ?? "?"))")
        try panel.lift()
        try client.wait("the daemon taking the clone into use again", timeout: 30) {
            ((try? service.journalCount("pass-through clone taken back")) ?? 0) > takenBack
        }
        try probe(panel, "\(panel.name) through the same clone after the restart")
        try expect(
            try cloneNode(of: panel) == clone && KioskService.sysfsDevice(of: clone) == device,
            "after the restart the clone is \(KioskService.sysfsDevice(of: clone) ?? "gone"), was \(device ?? "?")")
        let stored = try service.storedDescriptors
        try expect(stored == 1, "the store holds \(stored) descriptors after the restart")
    }
}
