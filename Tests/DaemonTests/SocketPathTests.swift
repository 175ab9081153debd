import Daemon
import Foundation
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Testing

/// The socket path cannot be turned against the daemon that binds it: a user
/// who owns the socket's directory swapping names during the bind, a daemon of another
/// user taking a live socket for stale, a stop removing a socket that is no longer ours.
@Suite struct SocketPathTests {
    /// A stopping daemon removed its socket path by name even after another daemon had
    /// taken the path over; now it removes only its own socket.
    @Test func closeRemovesOnlyTheDaemonsOwnSocket() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("g.sock")
        let first = try UnixListener(path: path, mode: 0o600, group: nil)
        // The path is taken over (the first socket moved aside, a new one bound there).
        #expect(rename(path, directory.file("first.sock")) == 0)
        let second = try UnixListener(path: path, mode: 0o600, group: nil)
        first.close()
        #expect(FileManager.default.fileExists(atPath: path), "the second daemon's socket stays")
        #expect(FileManager.default.fileExists(atPath: directory.file("first.sock")), "a renamed socket is left alone")
        second.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// What the new bind leaves behind: nothing but the socket (its private directory is
    /// removed), and a regular file at the path is not replaced.
    @Test func bindLeavesOnlyTheSocketAndReplacesNoFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("g.sock")
        let listener = try UnixListener(path: path, mode: 0o640, group: getgid())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["g.sock"])
        listener.close()
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        #expect(throws: SystemError.self) { _ = try UnixListener(path: path, mode: 0o600, group: nil) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["g.sock"])
    }
}
