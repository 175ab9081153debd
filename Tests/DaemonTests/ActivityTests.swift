import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Testing

/// `[daemon] idle-timeout` in process (ProgramTests/ActivityProgramTests runs it through
/// `gestured run --replay`).
@Suite struct ActivityTests {
    /// The daemon's half of `wake-swallow`: going idle calls `Daemon.wentIdle` (which
    /// `LiveDevices` hands to every pass-through device) once the `idle` line is out. The
    /// devices' half needs evdev and uinput: the VM's "pass-through: wake-swallow" case.
    @Test func goingIdleCallsWentIdle() throws {
        let called = DispatchSemaphore(value: 0)
        let daemon = try InProcessDaemon(idleTimeout: .seconds(0.2)) { called.signal() }
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        let idle = try client.readMessage(\.activity)
        #expect(idle.phase == .idle)
        #expect(called.wait(timeout: .now() + .seconds(10)) == .success, "wentIdle was not called")
        daemon.stop()
    }
}
