import Glibc
import SystemCalls

/// udevd's control socket: it exists while a udevd runs.
let udevControl = "/run/udev/control"

/// Starts `systemd-udevd` (`--debug` unless told otherwise; its log to `logPath`) and waits
/// for its control socket.
func startUdevd(logPath: String, debug: Bool = true) throws(CaseFailure) -> pid_t {
    guard !RegularFile.anythingExists(path: udevControl) else { throw CaseFailure("\(udevControl) exists already: is udev running?") }
    let candidates = ["/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd"]
    guard let udevd = candidates.first(where: { RegularFile.isAccessible(path: $0, mode: X_OK) }) else {
        throw CaseFailure("no systemd-udevd (\(candidates.joined(separator: ", "))): install the udev package (vm/setup.sh does)")
    }
    let pid = try spawn(udevd, debug ? ["--debug"] : [], logPath: logPath)
    let deadline = monotonicMicroseconds() + 30_000_000
    while !RegularFile.anythingExists(path: udevControl) {
        if let code = waitForExit(pid, timeout: 0) {
            throw CaseFailure("systemd-udevd exited with \(code): \(tail(logPath))")
        }
        if monotonicMicroseconds() >= deadline {
            _ = stopUdevd(pid)
            throw CaseFailure("no \(udevControl) 30 s after starting systemd-udevd: \(tail(logPath))")
        }
        pause(milliseconds: 20)
    }
    return pid
}

/// SIGTERM, then SIGKILL after 10 s (-1); removes a control socket it left behind so that
/// nothing started later takes udev for running.
func stopUdevd(_ pid: pid_t) -> Int32 {
    Subprocess.send(SIGTERM, to: pid)
    var status = waitForExit(pid, timeout: 10)
    if status == nil {
        Subprocess.send(SIGKILL, to: pid)
        _ = waitForExit(pid, timeout: 5)
        status = -1
    }
    RegularFile.remove(path: udevControl)
    return status ?? -1
}
