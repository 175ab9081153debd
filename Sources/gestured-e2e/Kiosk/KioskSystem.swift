import Foundation
import Glibc
import SystemCalls

/// What every compositor needs, started once per boot: udevd (libinput finds and
/// classifies devices through it, and udev rules such as a calibration matrix apply) and
/// seatd (the seat wlroots opens the devices through). `rules` are written to
/// `/run/udev/rules.d` before udevd starts. Under systemd as PID 1 the boot's own udevd
/// runs already (`startsUdevd` false).
final class KioskSystem {
    let work: String
    private let udevd: pid_t?
    private let seatd: pid_t
    static let seatSocket = "/run/seatd.sock"

    init(work: String, rules: String, startsUdevd: Bool = true) throws(CaseFailure) {
        self.work = work
        try? RegularFile.makeDirectory(path: "/run/udev", mode: 0o755)
        try? RegularFile.makeDirectory(path: "/run/udev/rules.d", mode: 0o755)
        guard FileManager.default.createFile(atPath: "/run/udev/rules.d/70-kiosk.rules", contents: Data(rules.utf8)) else {
            throw CaseFailure("cannot write the udev rules")
        }
        udevd = startsUdevd ? try startUdevd(logPath: "\(work)/udevd.log", debug: false) : nil
        // As root: the compositors run as nobody and reach the devices through it.
        do {
            seatd = try spawn(
                KioskRoot.seatd, ["-g", "nogroup"], environment: ["SEATD_VTBOUND=0"], logPath: "\(work)/seatd.log")
        } catch {
            if let udevd { _ = stopUdevd(udevd) }
            throw error
        }
        let deadline = monotonicMicroseconds() + 30_000_000
        while !RegularFile.anythingExists(path: Self.seatSocket) {
            if monotonicMicroseconds() >= deadline || waitForExit(seatd, timeout: 0) != nil {
                stop()
                throw CaseFailure("seatd did not create \(Self.seatSocket): \(tail("\(work)/seatd.log"))")
            }
            pause(milliseconds: 20)
        }
    }

    func stop() {
        Subprocess.send(SIGTERM, to: seatd)
        if waitForExit(seatd, timeout: 5) == nil {
            Subprocess.send(SIGKILL, to: seatd)
            _ = waitForExit(seatd, timeout: 5)
        }
        if let udevd { _ = stopUdevd(udevd) }
    }
}
