import Glibc
import SystemCalls
import Systemd
import Testing

/// `WATCHDOG_USEC` and `WATCHDOG_PID` as sd_watchdog_enabled(3) reads them.
@Suite struct WatchdogTests {
    @Test(arguments: [
        (microseconds: "200000", pid: String?.none, interval: Duration?.some(.milliseconds(200))),
        ("3000000", "42", .seconds(3)),
        ("1", nil, .microseconds(1)),
        ("200000", "43", nil),
    ])
    func interval(microseconds: String, pid: String?, interval: Duration?) throws {
        #expect(try ServiceManager.watchdogInterval(microseconds: microseconds, pid: pid, ownPID: 42) == interval)
    }

    @Test func unsetMeansNoWatchdog() throws {
        #expect(try ServiceManager.watchdogInterval(microseconds: nil, pid: nil, ownPID: 42) == nil)
        #expect(try ServiceManager.watchdogInterval(microseconds: nil, pid: "42", ownPID: 42) == nil)
    }

    /// Malformed values are an error naming the variable, as `sd_watchdog_enabled` fails,
    /// not a watchdog silently left unpinged.
    @Test(arguments: [
        (microseconds: "0", pid: String?.none, variable: "WATCHDOG_USEC=0"),
        ("-5", nil, "WATCHDOG_USEC=-5"),
        ("12x", nil, "WATCHDOG_USEC=12x"),
        ("", nil, "WATCHDOG_USEC="),
        ("18446744073709551615", nil, "WATCHDOG_USEC=18446744073709551615"),
        ("200000", "", "WATCHDOG_PID="),
        ("200000", "forty-two", "WATCHDOG_PID=forty-two"),
        ("200000", "0", "WATCHDOG_PID=0"),
    ])
    func malformed(microseconds: String, pid: String?, variable: String) {
        #expect(throws: SystemError(.invalidArgument, call: variable)) {
            try ServiceManager.watchdogInterval(microseconds: microseconds, pid: pid, ownPID: 42)
        }
    }
}
