import Glibc
import SystemCalls
import Systemd
import Testing

/// `WATCHDOG_USEC` and `WATCHDOG_PID` as sd_watchdog_enabled(3) reads them, for the cases
/// that enable no watchdog (in-process daemons of other suites read the same variables: a
/// watchdog enabled here would be theirs too). An enabled watchdog and malformed values:
/// ProgramTests' ServiceTests, in a `gestured` process of their own.
@Suite(.serialized) struct WatchdogTests {
    @Test func unsetOrAnotherProcessMeansNoWatchdog() throws {
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
        #expect(try ServiceManager.watchdogInterval() == nil)
        setenv("WATCHDOG_PID", "\(Subprocess.currentID)", 1)
        #expect(try ServiceManager.watchdogInterval() == nil, "WATCHDOG_PID alone")
        setenv("WATCHDOG_PID", "\(Subprocess.currentID + 1)", 1)
        setenv("WATCHDOG_USEC", "200000", 1)
        #expect(try ServiceManager.watchdogInterval() == nil, "a parent's, inherited")
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
    }
}
