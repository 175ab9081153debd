import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage
import Testing

/// The one socket-address helper: what `sun_path` cannot hold is refused (never truncated
/// into another file's name), and what it can hold reaches the socket it names.
@Suite struct UnixSocketTests {
    @Test func aPathTooLongForSunPathIsRefusedNotTruncated() throws {
        let longest = "/" + String(repeating: "a", count: UnixSocketAddress.maximumPathLength - 1)
        #expect(UnixSocketAddress.maximumPathLength == 107)
        #expect(try UnixSocketAddress(longest).path == longest)
        #expect(throws: SystemError(.fileNameTooLong, call: "sockaddr_un", path: longest + "a")) {
            try UnixSocketAddress(longest + "a")
        }
        #expect(throws: SystemError(.invalidArgument, call: "sockaddr_un", path: "/tmp/a\0b")) {
            try UnixSocketAddress("/tmp/a\0b")
        }
        #expect(throws: SystemError(.invalidArgument, call: "sockaddr_un", path: "")) { try UnixSocketAddress("") }
    }

    @Test func aBoundListeningSocketAcceptsWhatConnectsToItsPath() throws {
        let directory = TemporaryDirectory()
        // The longest path that fits: the terminating NUL must still be there.
        let name = String(repeating: "s", count: UnixSocketAddress.maximumPathLength - directory.path.utf8.count - 1)
        let path = directory.file(name)
        let listener = try UnixSocket.bind(.stream, to: path, nonBlocking: true)
        defer { try? listener.close() }
        #expect(listen(listener.rawValue, 4) == 0)
        #expect(try UnixSocket.accept(from: listener) == .wouldBlock)

        let client = try UnixSocket.connect(to: path)
        defer { try? client.close() }
        guard case .processed(let server) = try UnixSocket.accept(from: listener) else {
            Issue.record("no connection to accept")
            return
        }
        defer { try? server.close() }
        let credentials = try #require(UnixSocket.peerCredentials(server))
        #expect(credentials.pid == getpid() && credentials.uid == geteuid() && credentials.gid == getegid())
        #expect(try client.writeAll(Array("hello\n".utf8)) == 6)
        #expect(LineReader(server).readLine()?.text == "hello")
    }

    @Test func connectingWhereNothingListensSaysWhy() throws {
        let directory = TemporaryDirectory()
        #expect(throws: SystemError(.noSuchFileOrDirectory, call: "connect", path: directory.file("none"))) {
            try UnixSocket.connect(to: directory.file("none"))
        }
        let bound = directory.file("bound")
        try UnixSocket.bind(.stream, to: bound).close()  // a socket file nobody listens on
        #expect(throws: SystemError(.connectionRefused, call: "connect", path: bound)) {
            try UnixSocket.connect(to: bound)
        }
    }

    @Test func adoptingNamesTheSwiftSystemCallThatFailed() {
        #expect(throws: SystemError(.noSuchFileOrDirectory, call: "open", path: "/nonexistent")) {
            try SystemCall.adopting("open", path: "/nonexistent") { try FileDescriptor.open("/nonexistent", .readOnly) }
        }
    }
}
