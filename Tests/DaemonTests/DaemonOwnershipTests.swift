import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Testing

@testable import Daemon
@testable import Systemd

/// The daemon's own state and how components hear of it.
@Suite struct DaemonOwnershipTests {
    private func daemon(in directory: TemporaryDirectory) throws -> Daemon {
        var configuration = Configuration()
        let socketPath = directory.file("g.sock")
        configuration.daemon.socketPath = socketPath
        let listener = try UnixListener(path: socketPath, mode: 0o600, group: nil)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try Daemon(configuration: configuration, listener: listener, version: "test", logger: logger) { configuration }
    }

    /// Components registered through single-slot closures (`configurationChanged`,
    /// `sourceRemoved`, `wentIdle`, `clientSubscribed`): a second one silently replaced the
    /// first. The code before could not register two:
    /// both observers hear, in the order they came, and one that stops hears no more.
    @Test func twoObserversBothHearAndOneCanStop() throws {
        let directory = TemporaryDirectory()
        let daemon = try daemon(in: directory)
        var heard: [String] = []
        let first = daemon.observe { change in
            if case .configurationChanged = change { heard.append("first") }
        }
        daemon.observe { change in
            if case .configurationChanged = change { heard.append("second") }
        }
        daemon.reloadConfiguration()
        #expect(heard == ["first", "second"])
        daemon.stopObserving(first)
        daemon.reloadConfiguration()
        #expect(heard == ["first", "second", "second"])
    }

    /// The devices are the daemon's sources, one list in the order they came; a removed one
    /// is gone from `hello`'s list and every observer hears of it.
    @Test func theDevicesAreTheDaemonsSources() throws {
        let directory = TemporaryDirectory()
        let daemon = try daemon(in: directory)
        let a = try PipeSource(name: "a")
        let b = try PipeSource(name: "b")
        var removed: [String] = []
        for _ in 0..<2 {
            daemon.observe { change in
                if case .sourceRemoved(let source) = change { removed.append(source.device.name) }
            }
        }
        try daemon.add(a)
        try daemon.add(b)
        #expect(daemon.state.devices.map(\.name) == ["a", "b"])
        daemon.remove(a, reason: "test")
        #expect(daemon.state.devices.map(\.name) == ["b"])
        #expect(daemon.activeSources.map(\.device.name) == ["b"])
        #expect(removed == ["a", "a"])
        #expect(daemon.state.lastTouch == nil, "nothing touched yet")
    }

    /// Each loop that handled signals made a new signal pipe and closed neither end. Fails
    /// on the earlier code (both ends stayed open for the life of the process): a
    /// loop's pipe now goes with it.
    @Test func aLoopClosesItsSignalPipe() throws {
        var pipes: [String] = []
        for _ in 0..<3 {
            let loop = try EventLoop()
            _ = try loop.onSignal(SIGWINCH) { _ in }
            let ends = try #require(loop.signalPipeEnds)
            pipes.append(try Self.link(ends.read))
            #expect(try Self.link(ends.write) == pipes.last)
        }
        // `pipe:[inode]`: no descriptor of this process refers to those pipes any more
        // (a descriptor number may be reused by a test running alongside; an inode is not
        // while it is open).
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        }
        for pipe in pipes {
            #expect(!open.contains(pipe), "\(pipe) still open")
        }
    }

    private static func link(_ fd: FileDescriptor) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd.rawValue)")
    }
}
