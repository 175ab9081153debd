import GestureTestSupport
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Systemd
import Testing

@testable import Daemon

/// What a restarted daemon does with descriptors from the store that are no live clone. The
/// clones themselves (taken back, lifted, claimed by the same panel) need uinput: the
/// systemd tier shows them under the real unit.
struct StoredClonesTests {
    /// A descriptor stored under a clone's name that is no uinput device (here a pipe: the
    /// kernel answers `UI_GET_SYSNAME` with `ENOTTY`, as it answers `ENOENT` for a clone
    /// destroyed meanwhile) is closed, not kept, and nothing waits to be claimed under its name.
    @Test func aDescriptorThatIsNoCloneIsClosed() throws {
        Subprocess.ignore(signals: [SIGPIPE])
        let ends = try Subprocess.pipe()
        defer { try? ends.write.close() }
        let clones = StoredClones(
            [PassedDescriptor(descriptor: ends.read, name: "gestured-clone-event5-0123456789abcdef")], logger: Logger(label: "test"))
        #expect(clones.claim("gestured-clone-event5-0123456789abcdef") == nil)
        // Its only reader gone, the pipe refuses a write: the read end was closed.
        #expect(throws: Errno.brokenPipe) { try ends.write.writeAll([1]) }
    }
}
