import GestureProtocol
import Glibc
import SystemCalls

/// Sleeps for `milliseconds` of wall time. The driver paces its touches this way, as a
/// finger would; checks never rely on it (they use the kernel's timestamps).
/// Microseconds from `start` to `end` by the kernel's clock, negative when `end` is earlier.
func elapsed(_ start: Timestamp, _ end: Timestamp) -> Int64 {
    Int64(end.microseconds) - Int64(start.microseconds)
}

func pause(milliseconds: Double) {
    guard milliseconds > 0 else { return }
    sleepMicroseconds(UInt64(milliseconds * 1000))
}

/// Sleeps until CLOCK_MONOTONIC reaches `deadline` (microseconds).
func pause(until deadline: UInt64) {
    let now = monotonicMicroseconds()
    if deadline > now { pause(milliseconds: Double(deadline - now) / 1000) }
}

/// Why a case failed; its text is printed after `FAIL name:`.
struct CaseFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The touches did not reach the kernel as the case meant them (the kernel's timestamps
/// show it: a tap held past the long-press time, taps too far apart to count together)
/// because the emulated machine stalled the driver. Not a verdict on the daemon: the
/// harness runs the case again.
struct StimulusMissed: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Fails the current case with `reason` unless `condition` holds.
func expect(_ condition: Bool, _ reason: @autoclosure () -> String) throws(CaseFailure) {
    if !condition { throw CaseFailure(reason()) }
}

/// The `strerror` text of an errno value.
func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

/// Writes to standard output at once (the host streams the guest's output live).
func say(_ line: String) {
    print(line)
    fflush(nil)  // every stream: avoids touching the global `stdout`
}

/// Runs the cases, prints `PASS name` / `FAIL name: reason`, and counts.
final class Harness {
    private(set) var passed = 0
    private(set) var failed = 0
    private(set) var failures: [String] = []
    /// Only cases whose name contains one of these run (all when empty).
    let only: [String]

    init(only: [String]) { self.only = only }

    func wants(_ name: String) -> Bool {
        only.isEmpty || only.contains { name.contains($0) }
    }

    /// How often a case whose stimulus the machine did not deliver as meant is tried.
    static let attempts = 3

    /// Runs one case. `body` throws `CaseFailure` (or any error) to fail, `StimulusMissed`
    /// to be run again (up to `attempts` times; a stimulus never delivered fails the case).
    /// `always`: a setup case the others need, run whatever `only` says.
    func run(_ name: String, always: Bool = false, _ body: () throws -> Void) {
        guard always || wants(name) else { return }
        let started = monotonicMicroseconds()
        for attempt in 1...Harness.attempts {
            do {
                try body()
                passed += 1
                say("PASS \(name)  (\(elapsed(since: started)))")
                return
            } catch let missed as StimulusMissed where attempt < Harness.attempts {
                say("RETRY \(name): \(missed)")
            } catch {
                failed += 1
                failures.append(name)
                say("FAIL \(name): \(error)  (\(elapsed(since: started)))")
                return
            }
        }
    }

    /// Records a failure that happened outside any case body (e.g. the daemon did not start).
    func fail(_ name: String, _ reason: String) {
        guard wants(name) else { return }
        failed += 1
        failures.append(name)
        say("FAIL \(name): \(reason)")
    }

    private func elapsed(since started: UInt64) -> String {
        let milliseconds = Double(monotonicMicroseconds() - started) / 1000
        return milliseconds < 1000 ? "\(Int(milliseconds)) ms" : "\(Double(Int(milliseconds / 100)) / 10) s"
    }
}
