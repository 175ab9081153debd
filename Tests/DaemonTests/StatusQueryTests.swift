import Daemon
import GestureClient
import GestureProtocol
import GestureTestSupport
import Testing

/// `StatusQuery`, what `gestured devices` asks the running daemon: its `status` over the
/// real socket, or why there is none.
@Suite struct StatusQueryTests {
    @Test func answersWithTheDaemonsGhostSeries() throws {
        let panel = try PipeSource(name: "Touch Display 2")
        let series = GhostSeries(
            device: "Touch Display 2", location: Point(x: 0.44, y: 0.018), period: .milliseconds(12_864), count: 57)
        panel.ghosts = [series]
        let daemon = try InProcessDaemon(devices: [panel])
        defer { daemon.stop() }
        let answer = StatusQuery.ask(path: daemon.socketPath, timeoutMilliseconds: 10_000)
        guard case .success(let status) = answer else {
            Issue.record("no status: \(answer)")
            return
        }
        #expect(status.ghosts == [series])
        #expect(status.devices.contains { $0.name == "Touch Display 2" })
    }

    @Test func noDaemonIsNotRunning() {
        let directory = TemporaryDirectory()
        let path = directory.file("gestured.sock")
        #expect(StatusQuery.ask(path: path, timeoutMilliseconds: 10_000) == .failure(.notRunning(path: path)))
    }

    /// A socket that takes the connection and never answers (a daemon stopped with SIGSTOP):
    /// the query gives up after its timeout instead of hanging.
    @Test func aSilentSocketTimesOut() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("gestured.sock")
        let listener = try UnixListener(path: path, mode: 0o600, group: nil)
        defer { withExtendedLifetime(listener) {} }
        #expect(
            StatusQuery.ask(path: path, timeoutMilliseconds: 50)
                == .failure(.failed(path: path, reason: "no status reply within 50 ms")))
    }
}
