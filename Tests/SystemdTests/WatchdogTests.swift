import Glibc
import Systemd
import Testing

/// `WATCHDOG_USEC` and `WATCHDOG_PID` as sd_watchdog_enabled(3) reads them.
@Suite struct WatchdogTests {
    @Test(arguments: [
        (microseconds: "200000", pid: String?.none, interval: Duration?.some(.milliseconds(200))),
        ("3000000", "42", .seconds(3)),
        ("200000", "43", nil),
        ("200000", "", nil),
        ("200000", "forty-two", nil),
        ("0", nil, nil),
        ("-5", nil, nil),
        ("12x", nil, nil),
        ("", nil, nil),
        ("18446744073709551615", nil, nil),
    ])
    func interval(microseconds: String, pid: String?, interval: Duration?) {
        #expect(ServiceManager.watchdogInterval(microseconds: microseconds, pid: pid, ownPID: 42) == interval)
    }

    @Test func unsetMeansNoWatchdog() {
        #expect(ServiceManager.watchdogInterval(microseconds: nil, pid: nil, ownPID: 42) == nil)
        #expect(ServiceManager.watchdogInterval(microseconds: nil, pid: "42", ownPID: 42) == nil)
    }
}
