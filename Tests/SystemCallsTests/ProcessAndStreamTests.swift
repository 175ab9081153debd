import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage
import Testing

/// The wrappers `gesturectl actions`' supervisor and every program's standard streams use.
@Suite struct ProcessAndStreamTests {
    /// `poll` reports nothing on an empty pipe, then the byte written; `Polling.read` takes
    /// it, says would-block when the pipe is empty and 0 at its end. The end comes when the
    /// last copy of the write end is closed, and a child that another test spawns at that
    /// moment holds a copy between its fork and its exec (close-on-exec closes it only at
    /// the exec): so the end is waited for (`poll` reports the hang-up), not expected at once.
    @Test func pollAndReadFollowAPipe() throws {
        let pipe = try Subprocess.pipe(nonBlocking: (read: true, write: false))
        defer { try? pipe.read.close() }
        var descriptors = [pollfd(fd: pipe.read.rawValue, events: Int16(POLLIN), revents: 0)]
        #expect(try Polling.poll(&descriptors, timeoutMilliseconds: 0) == 0)
        _ = try pipe.write.writeAll([42])
        #expect(try Polling.poll(&descriptors, timeoutMilliseconds: -1) == 1)
        #expect(descriptors[0].revents & Int16(POLLIN) != 0)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(try Polling.read(pipe.read, into: &buffer) == .processed(1))
        #expect(buffer[0] == 42)
        #expect(try Polling.read(pipe.read, into: &buffer) == .wouldBlock)
        try pipe.write.close()
        #expect(waitReadable(pipe.read), "no end of stream: a process still holds the write end")
        #expect(try Polling.read(pipe.read, into: &buffer) == .processed(0))
    }

    /// `reap` returns the wait status: the exit code of a command that exits, the signal of
    /// one killed through its process group (`send(_:to:)` with `-pid`).
    @Test func reapReturnsTheStatusAndSendReachesTheGroup() throws {
        let exits = try Subprocess.spawn(executable: "/bin/sh", arguments: ["sh", "-c", "exit 3"])
        let exited = Subprocess.reap(exits)
        #expect(exited & 0x7f == 0 && (exited >> 8) & 0xff == 3)

        var options = Subprocess.Options()
        options.ownProcessGroup = true
        let sleeper = try Subprocess.spawn(executable: "/bin/sleep", arguments: ["sleep", "600"], options: options)
        #expect(Subprocess.send(SIGKILL, to: -sleeper))
        #expect(Subprocess.reap(sleeper) & 0x7f == SIGKILL)
        #expect(!Subprocess.send(0, to: sleeper), "reaped: no such process any more")
    }

    /// Standard output and error go where the options say, and the child holds no other
    /// descriptor of this process: not even one without close-on-exec.
    @Test func aChildGetsItsOwnStreamsAndNothingElse() throws {
        let output = try Subprocess.pipe()
        let errors = try Subprocess.pipe()
        defer { for end in [output.read, errors.read] { try? end.close() } }
        // A descriptor a careless open left inheritable.
        let leaky = dup(output.write.rawValue)
        try #require(leaky >= 0)
        defer { close(leaky) }
        var options = Subprocess.Options()
        options.nullStandardInput = true
        options.standardOutput = output.write
        options.standardError = errors.write
        // Each of this process's descriptors that is open in the child is printed.
        let ours = [output.read, output.write, errors.read, errors.write].map(\.rawValue) + [leaky]
        let script =
            "for n in \(ours.map(String.init).joined(separator: " ")); do [ -e /proc/$$/fd/$n ] && echo $n; done; echo done; echo to-stderr >&2"
        let child = try Subprocess.spawn(executable: "/bin/sh", arguments: ["sh", "-c", script], options: options)
        try output.write.close()
        try errors.write.close()
        close(leaky)
        let status = Subprocess.reap(child)
        #expect(status == 0)
        #expect(readAll(output.read) == "done\n")
        #expect(readAll(errors.read) == "to-stderr\n")
    }

    /// The identity of standard error is that of the file descriptor 2 names (what
    /// journald's `JOURNAL_STREAM` is compared with).
    @Test func standardErrorIdentityIsDescriptorTwos() throws {
        let identity = try #require(StandardStream.error.identity())
        var info = stat()
        #expect(stat("/proc/self/fd/2", &info) == 0)
        #expect(identity.device == UInt64(info.st_dev) && identity.inode == UInt64(info.st_ino))
    }

    /// An override replaces every entry of its name, wherever it stood; others keep their order.
    @Test func environmentOverriddenByName() {
        let merged = Subprocess.environment(["A=1", "PATH=/bin", "B=2", "PATH=/x", "AB=3"], overriddenBy: ["PATH=/usr/bin", "C=4"])
        #expect(merged == ["A=1", "B=2", "AB=3", "PATH=/usr/bin", "C=4"])
    }

    @Test func environmentValues() {
        #expect(Environment.value("PATH") != nil)
        #expect(Environment.value("GESTURED_TEST_NEVER_SET_\(getpid())") == nil)
    }

    /// Everything `descriptor` gives until its end, as text.
    private func readAll(_ descriptor: FileDescriptor) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }), count > 0 {
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
