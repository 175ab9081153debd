import Glibc
import SystemPackage
import Testing

@testable import SystemCalls

@Suite struct SystemCallTests {
    @Test func posixRetriesEINTR() throws {
        var calls = 0
        let result = try SystemCall.posix("fake") { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
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
        #expect(throws: SystemError(.badFileDescriptor, call: "read", path: "x")) {
            try SystemCall.posix("read", path: "x") { () -> Int32 in
                errno = EBADF
                return -1
            }
        }
    }

    @Test func negatedErrnoConvertsOnce() throws {
        var script: [Int32] = [-EINTR, -EINTR, -EAGAIN]
        let result = try SystemCall.negatedErrno("libevdev_fake") { script.removeFirst() }
        #expect(result == .wouldBlock)
        #expect(script.isEmpty)
        #expect(try SystemCall.negatedErrno("libevdev_fake") { 1 } == .processed(1))
        #expect(throws: SystemError(.operationNotSupportedByDevice, call: "libevdev_fake")) {
            try SystemCall.negatedErrno("libevdev_fake") { -ENODEV }
        }
    }

    @Test func blockingVariantsTreatWouldBlockAsAnError() {
        #expect(throws: SystemError(.resourceTemporarilyUnavailable, call: "open", path: "p")) {
            try SystemCall.posixBlocking("open", path: "p") { () -> Int32 in
                errno = EWOULDBLOCK
                return -1
            }
        }
    }

    @Test func errorDescriptionNamesPathReasonAndHint() {
        let error = SystemError(.noSuchFileOrDirectory, call: "libevdev_uinput_create_from_device", path: "/dev/uinput")
        #expect(
            error.description == "/dev/uinput: No such file or directory — this kernel has no uinput (libevdev_uinput_create_from_device)")
        #expect(SystemError(.badFileDescriptor, call: "close").description == "close: Bad file descriptor")
    }
}
