import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls

/// Wake-swallow against a kiosk's usual blanker: sway on its DRM backend (the guest's
/// virtio GPU, `vm/run.sh --gpu`) with swayidle switching the output off, and gestured
/// with `wake-swallow` and no idle timeout of its own, so only the kernel's DRM state can
/// say the screen is dark. The touch on the dark screen must reach no client (wev) and
/// still bring the output back (swayidle's `resume` runs, `get_outputs` says `"dpms": true`);
/// the next tap reaches the client. Verdicts come from what wev and sway report.
final class BlankingRun {
    let cases: KioskCases
    /// swayidle's timeout: long enough for a tap and its check after the wake, short for
    /// the case's time.
    static let idleSeconds = 6
    static let panelName = "\(KioskCases.namePrefix) blanking ELAN Touchscreen"
    static let config = """
        [daemon]
        log-level = "debug"
        idle-timeout = 0

        [[device]]
        match-name = "\(KioskCases.namePrefix) *"
        pass-through = true
        wake-swallow = true
        wake-guard = 300

        [[device]]
        match-name = "*"
        enabled = false
        """

    var pid: pid_t?
    var client: WaylandClientLog!
    var daemon: DaemonProcess?
    var subscriber: Subscriber?
    var panel: TouchPanel?
    var runtime: String { "\(cases.work)/xdg-sway-drm" }
    var logPath: String { "\(cases.work)/sway-drm.log" }

    init(cases: KioskCases) {
        self.cases = cases
    }

    static let caseName =
        "kiosk [sway drm]: swayidle switches the output off; a tap on the dark screen reaches no client and swayidle's resume turns it on; the next tap reaches the client"

    func run(_ harness: Harness) {
        guard harness.wants(Self.caseName) else { return }
        harness.run(Self.caseName) {
            defer { stop() }
            try start()
            try blankAndWake()
        }
        if harness.failures.contains(Self.caseName) {
            if let daemon { say("gestured log (\(daemon.logPath)): \(tail(daemon.logPath, lines: 20))") }
            say("sway log: \(tail(logPath, lines: 15))")
        }
    }

    func start() throws(CaseFailure) {
        guard RegularFile.anythingExists(path: "/dev/dri/card0") else {
            throw CaseFailure("no /dev/dri/card0: the guest needs a virtio GPU (vm/run.sh --gpu)")
        }
        guard let nobody = getpwnam("nobody") else { throw CaseFailure("no user nobody") }
        let (uid, gid) = (nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        try? RegularFile.makeDirectory(path: runtime, mode: 0o700)
        do {
            try SystemCall.posixBlocking("chown", path: runtime) { chown(runtime, uid, gid) }
        } catch {
            throw CaseFailure("chown \(runtime): \(errorText(error.errno.rawValue))")
        }
        client = try WaylandClientLog(fifo: "\(cases.work)/wev-sway-drm.fifo")
        let configPath = "\(cases.work)/sway-drm.conf"
        // The blanker exactly as a kiosk's sway configuration runs it.
        let swayConfig = """
            \(client.shellCommand)
            exec swayidle -w timeout \(Self.idleSeconds) 'swaymsg "output * dpms off"' resume 'swaymsg "output * dpms on"'

            """
        guard FileManager.default.createFile(atPath: configPath, contents: Data(swayConfig.utf8)) else {
            throw CaseFailure("cannot write \(configPath)")
        }
        _ = try? SystemCall.posixBlocking("chmod", path: configPath) { chmod(configPath, 0o644) }
        let started = try spawn(
            "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "sway", "-c", configPath],
            environment: [
                "XDG_RUNTIME_DIR=\(runtime)", "HOME=\(runtime)", "WLR_BACKENDS=drm,libinput", "WLR_RENDERER=pixman",
                "LIBSEAT_BACKEND=seatd", "WLR_LIBINPUT_NO_DEVICES=1",
            ], logPath: logPath)
        pid = started
        let deadline = monotonicMicroseconds() + 120_000_000
        while !client.activated {
            if let code = waitForExit(started, timeout: 0) {
                throw CaseFailure("sway (DRM) exited with \(code) before wev was activated: \(tail(logPath))")
            }
            try expect(monotonicMicroseconds() < deadline, "wev was not activated within 120 s: \(tail(logPath))")
            client.pump(milliseconds: 200)
        }
        panel = try TouchPanel(descriptionFile: cases.elanDescription, name: Self.panelName)
        let configFile = "\(cases.work)/blanking.toml"
        guard FileManager.default.createFile(atPath: configFile, contents: Data(Self.config.utf8)) else {
            throw CaseFailure("cannot write \(configFile)")
        }
        let running = try DaemonProcess(
            executable: cases.gestured, config: configFile, socketPath: "\(cases.work)/blanking.sock",
            logPath: "\(cases.work)/blanking-gestured.log")
        daemon = running
        let listener = try Subscriber(socketPath: running.socketPath)
        let hello = try listener.subscribe()
        subscriber = listener
        if !hello.devices.contains(where: { $0.name == Self.panelName }) { try awaitDevice(listener, Self.panelName, .added) }
    }

    func stop() {
        _ = daemon?.stop()
        daemon = nil
        panel?.unplug()
        if let pid {
            Subprocess.send(SIGTERM, to: pid)
            if waitForExit(pid, timeout: 10) == nil {
                Subprocess.send(SIGKILL, to: pid)
                _ = waitForExit(pid, timeout: 5)
            }
        }
        pid = nil
    }

    func tap(_ spot: Spot) throws(CaseFailure) {
        guard let panel else { throw CaseFailure("no panel") }
        try panel.frame([0: spot])
        client.settle(milliseconds: 50, alongside: subscriber)
        try panel.frame([:])
    }

    /// Every output's `dpms` as sway reports it (`swaymsg -t get_outputs`).
    func outputsOn() throws(CaseFailure) -> [Bool] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
        guard let socket = entries.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) else {
            throw CaseFailure("no sway IPC socket in \(runtime): \(entries)")
        }
        let output = "\(cases.work)/outputs.json"
        let swaymsg = try spawn(
            "/usr/bin/swaymsg", ["-s", "\(runtime)/\(socket)", "-r", "-t", "get_outputs"], logPath: "\(cases.work)/swaymsg.log",
            stdoutPath: output)
        guard waitForExit(swaymsg, timeout: 30) == 0, let data = FileManager.default.contents(atPath: output),
            let outputs = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { throw CaseFailure("swaymsg -t get_outputs failed: \(tail("\(cases.work)/swaymsg.log"))") }
        return outputs.compactMap { $0["dpms"] as? Bool }
    }

    /// Waits (reading the client meanwhile) until sway's outputs are all `on` or all off.
    func awaitOutputs(on: Bool, _ what: String, timeout: Double) throws(CaseFailure) {
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while true {
            let states = try outputsOn()
            if !states.isEmpty && states.allSatisfy({ $0 == on }) { return }
            guard monotonicMicroseconds() < deadline else {
                throw CaseFailure("\(what) within \(Int(timeout)) s: sway reports dpms \(states); sysfs \(drmState())")
            }
            client.settle(milliseconds: 200, alongside: subscriber)
        }
    }

    /// The DRM connectors' state in sysfs, for failure messages.
    func drmState() -> String {
        let connectors = ((try? Directory.entryNames("/sys/class/drm")) ?? []).filter { $0.hasPrefix("card") && $0.contains("-") }
        return connectors.sorted().map { name in
            let attributes = ["status", "dpms", "enabled"].map { attribute in
                let text = (try? RegularFile.read(path: "/sys/class/drm/\(name)/\(attribute)", limit: 4096)).map {
                    String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                return "\(attribute)=\(text ?? "?")"
            }
            return "\(name): \(attributes.joined(separator: " "))"
        }.joined(separator: "; ")
    }

    func blankAndWake() throws(CaseFailure) {
        guard let subscriber else { throw CaseFailure("no subscriber") }
        // The clone is the compositor's once a tap through it reaches wev. swayidle may have
        // switched the output off meanwhile: a tap then only wakes it, and the next one
        // (within swayidle's timeout) reaches wev.
        var reached = false
        for _ in 1...15 where !reached {
            let mark = client.touches.count
            try tap(Spot(0.85, 0.85))
            reached = (try? client.wait("a probe tap", timeout: 2, alongside: subscriber) { client.count(.up, since: mark) >= 1 }) != nil
        }
        try expect(reached, "no probe tap through the clone reached wev")
        var attempt = 0
        while true {
            attempt += 1
            // No touch for swayidle's timeout: it switches the output off.
            try awaitOutputs(on: false, "swayidle did not switch the output off", timeout: Double(Self.idleSeconds) + 30)
            _ = subscriber.drain(quiet: 0.2)
            let mark = client.touches.count
            try tap(Spot(0.35, 0.35))
            try awaitOutputs(on: true, "the output did not come back after the wake tap", timeout: 15)
            // The wake tap reached the subscriber, as a tap where it was.
            let wake = try subscriber.gestures(until: "the wake tap") { $0.gesture == .tap }.last!
            try expect(
                distance(wake.location, Spot(0.35, 0.35)) < locationTolerance,
                "the subscriber's tap is at \(describe(wake.location)), not the wake tap's (0.35, 0.35)")
            // Past the wake guard, the next tap is the visitor's.
            client.settle(milliseconds: 800, alongside: subscriber)
            try expect(client.touches(since: mark).isEmpty, "the client got \(describe(client.touches(since: mark))) for the wake tap")
            guard try outputsOn().allSatisfy({ $0 }) else {
                // The driver stalled past swayidle's timeout: the output is dark again.
                guard attempt < Harness.attempts else { throw CaseFailure("the output went off again in \(attempt) attempts") }
                say("RETRY \(Self.caseName): the output went off before the next tap")
                continue
            }
            try tap(Spot(0.65, 0.65))
            let reachedNext =
                (try? client.wait("the tap after the wake", timeout: 5, alongside: subscriber) {
                    client.count(.up, since: mark) >= 1
                }) != nil
            let seen = client.touches(since: mark)
            if !reachedNext, try !outputsOn().allSatisfy({ $0 }), attempt < Harness.attempts {
                say("RETRY \(Self.caseName): the output went off around the next tap")
                continue
            }
            let downs = seen.filter { $0.kind == .down }
            try expect(
                reachedNext && downs.count == 1 && seen.filter({ $0.kind == .up }).count == 1,
                "the client got \(describe(seen)) for a wake tap and one tap after it")
            try expect(try outputsOn().allSatisfy { $0 }, "the output is off after the tap that followed the wake")
            return
        }
    }
}
