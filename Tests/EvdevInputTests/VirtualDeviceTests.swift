#if canImport(Glibc)
import Glibc
#endif
import EvdevInput
import GestureCore
import Testing

@Suite struct VirtualDeviceTests {
    static let hasNoUinput = access(VirtualDevice.uinputPath, F_OK) != 0 && errno == ENOENT

    /// On a host without uinput (the build machines) creation must fail with a clear error,
    /// not crash. Real creation is exercised inside the VM tier (issue 4).
    @Test(.enabled(if: hasNoUinput, "this host has /dev/uinput"))
    func missingUinputIsAClearError() {
        do {
            _ = try VirtualDevice(CorpusDevices.elan)
            Issue.record("created a uinput device without /dev/uinput")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.description.hasPrefix("/dev/uinput: No such file or directory — this kernel has no uinput"))
        }
    }
}
