import EvdevInput
import SystemCalls
import Testing

/// Opening what is not an evdev device is a clear error naming the node, never a crash.
@Suite struct OpeningTests {
    @Test func openingANonEvdevFileIsAClearError() {
        do {
            _ = try EvdevDevice(path: "/dev/null")
            Issue.record("/dev/null opened as an evdev device")
        } catch {
            #expect(error.call == "libevdev_new_from_fd")
            #expect(error.path == "/dev/null")
            #expect(error.description.contains("not an evdev device"), "\(error)")
        }
    }

    @Test func openingAMissingNodeIsAClearError() {
        #expect(throws: SystemError(.noSuchFileOrDirectory, call: "open", path: "/nonexistent/event0")) {
            try EvdevDevice(path: "/nonexistent/event0")
        }
    }

    @Test func openingADirectoryIsAClearError() {
        #expect(throws: SystemError.self) { try EvdevDevice(path: "/") }
    }
}
