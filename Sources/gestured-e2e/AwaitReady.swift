import GestureTestSupport
import Glibc
import SystemCalls

/// How long the driver waits for an event a started service must bring (gestured's or
/// gestured-web's `READY=1`, a started daemon's devices and clones) before calling it hung:
/// a bound that only catches a hang. A start that is merely slow (a loaded host, emulation)
/// still passes; the verdict is the event or the process's exit, never the time it took.
let hangBound = 600.0

/// Waits for `READY=1` on `notify` from the process `pid` (`what`, logging to `logPath`):
/// returns the datagram that carried it; throws when the process exits first (its status
/// is given to `exited`), or when nothing came within `hangBound` (the process is then
/// killed). The time it took is noted when it was long, for the run's log.
func awaitReady(
    _ what: String, pid: pid_t, notify: NotifySocket, logPath: String, exited: (Int32) -> Void = { _ in }
) throws(CaseFailure) -> String {
    let started = monotonicMicroseconds()
    let deadline = started + UInt64(hangBound * 1_000_000)
    while true {
        if let message = notify.next(timeout: 100), message.split(separator: "\n").contains("READY=1") {
            let took = Double(monotonicMicroseconds() - started) / 1_000_000
            if took > 10 { say("  NOTE: \(what) took \(Int(took)) s to say READY=1 (a loaded host)") }
            return message
        }
        if let code = waitForExit(pid, timeout: 0) {
            exited(code)
            throw CaseFailure("\(what) exited with \(code) before READY=1: \(tail(logPath))")
        }
        if monotonicMicroseconds() >= deadline {
            Subprocess.send(SIGKILL, to: pid)
            _ = waitForExit(pid, timeout: 5)
            throw CaseFailure("no READY=1 from \(what) within \(Int(hangBound)) s (hung): \(tail(logPath))")
        }
    }
}
