#if canImport(Glibc)
import Glibc
#endif
@testable import EvdevInput
import GestureCore
import Testing

@Suite struct SystemCallTests {
    @Test func posixRetriesEINTR() throws {
        var calls = 0
        let result = try SystemCall.posix("fake") { () -> Int32 in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == .processed(7))
        #expect(calls == 3)
    }

    @Test func posixReturnsWouldBlockAsAValue() throws {
        var calls = 0
        let result = try SystemCall.posix("fake") { () -> Int in
            calls += 1
            errno = EAGAIN
            return -1
        }
        #expect(result == .wouldBlock)
        #expect(calls == 1)
    }

    @Test func posixThrowsOtherErrnos() {
        #expect(throws: SystemError(errno: EBADF, call: "read", path: "x")) {
            try SystemCall.posix("read", path: "x") { () -> Int32 in errno = EBADF; return -1 }
        }
    }

    @Test func negatedErrnoConvertsOnce() throws {
        var script: [Int32] = [-EINTR, -EINTR, -EAGAIN]
        let result = try SystemCall.negatedErrno("libevdev_fake") { script.removeFirst() }
        #expect(result == .wouldBlock)
        #expect(script.isEmpty)
        #expect(try SystemCall.negatedErrno("libevdev_fake") { 1 } == .processed(1))
        #expect(throws: SystemError(errno: ENODEV, call: "libevdev_fake")) {
            try SystemCall.negatedErrno("libevdev_fake") { -ENODEV }
        }
    }

    @Test func blockingVariantsTreatWouldBlockAsAnError() {
        #expect(throws: SystemError(errno: EAGAIN, call: "open", path: "p")) {
            try SystemCall.posixBlocking("open", path: "p") { () -> Int32 in errno = EWOULDBLOCK; return -1 }
        }
    }

    @Test func errorDescriptionNamesPathReasonAndHint() {
        let error = SystemError(errno: ENOENT, call: "libevdev_uinput_create_from_device", path: "/dev/uinput")
        #expect(error.description == "/dev/uinput: No such file or directory — this kernel has no uinput (libevdev_uinput_create_from_device)")
        #expect(SystemError(errno: EBADF, call: "close").description == "close: Bad file descriptor")
    }

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
        #expect(throws: SystemError(errno: ENOENT, call: "open", path: "/nonexistent/event0")) {
            try EvdevDevice(path: "/nonexistent/event0")
        }
    }

    @Test func openingADirectoryIsAClearError() {
        #expect(throws: SystemError.self) { try EvdevDevice(path: "/") }
    }
}
