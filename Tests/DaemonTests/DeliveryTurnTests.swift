import GestureCore
import GestureProtocol
import GestureTestSupport
import Logging
import Systemd
import Testing

@testable import Daemon

/// When a device's lines reach the clients' sockets, counted in turns of the loop.
/// The loop is driven by hand, one dispatch at a time (`EventLoop.runOnce`): no thread, no
/// sleep, no verdict that depends on the machine's speed.
@Suite struct DeliveryTurnTests {
    private func daemon(in directory: TemporaryDirectory, maxClients: Int = 64) throws -> Daemon {
        var configuration = Configuration()
        configuration.daemon.maxClients = maxClients
        let socketPath = directory.file("g.sock")
        configuration.daemon.socketPath = socketPath
        configuration.daemon.idleTimeout = .zero
        let listener = try UnixListener(path: socketPath, mode: 0o600, group: nil)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try Daemon(configuration: configuration, listener: listener, version: "test", logger: logger) { configuration }
    }

    /// Dispatches until nothing is pending (bounded: a loop that never settles fails).
    private func settle(_ loop: EventLoop) {
        var turns = 0
        while loop.runOnce() {
            turns += 1
            if turns > 10_000 {
                Issue.record("the loop did not settle")
                return
            }
        }
    }

    /// Every line the client can read now, without waiting.
    private func available(_ client: LineClient) -> [String] {
        var lines: [String] = []
        while let line = client.readLine(timeout: 0) { lines.append(line) }
        return lines
    }

    /// A device's lines were written by a deferred task, a turn of the loop of its own after
    /// the dispatch that read the device. Fails on the earlier code (after the read
    /// dispatch the client's socket was still empty, the gesture came one turn later): now
    /// the dispatch that reads the device writes its lines before it returns.
    @Test func theDispatchThatReadsADeviceWritesItsLines() throws {
        let directory = TemporaryDirectory()
        let daemon = try daemon(in: directory)
        let screen = try PipeSource(name: "screen")
        screen.script[1] = [tap(), tap(region: "panel")]
        try daemon.add(screen)
        let client = try LineClient(path: directory.file("g.sock"))
        settle(daemon.loop)
        let greeting = available(client)
        #expect(greeting.first?.contains(#""type":"hello""#) == true, "\(greeting)")

        screen.trigger(1)
        #expect(daemon.loop.runOnce(), "the device's read was dispatched")
        let lines = available(client)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.allSatisfy { $0.contains(#""type":"gesture""#) }, "\(lines)")
        #expect(lines.map { WireScanner.unsigned(after: Array(#""seq":"#.utf8), in: Array($0.utf8)) } == [1, 2])
        settle(daemon.loop)
        #expect(available(client).isEmpty, "nothing else was written")
    }

    /// Writing stays bounded per dispatch with the deferred task gone from the device's path:
    /// past `maximumFlushesPerDispatch` clients, the rest get the line from a deferred task
    /// (which re-schedules itself after the next dispatch when more remain), so thousands of
    /// clients cannot hold the loop (docs/reliability.md).
    @Test func atMostMaximumFlushesPerDispatchClientsAreWrittenInTheReadDispatch() throws {
        let directory = TemporaryDirectory()
        let limit = SocketServer.maximumFlushesPerDispatch
        let daemon = try daemon(in: directory, maxClients: limit + 3)
        let screen = try PipeSource(name: "screen")
        screen.script[1] = [tap()]
        try daemon.add(screen)
        var clients: [LineClient] = []
        for index in 0..<(limit + 3) {
            clients.append(try LineClient(path: directory.file("g.sock")))
            // Accepted as they come: nobody accepts while the test connects, and a connect
            // past the listener's backlog would wait.
            if index % 16 == 15 { settle(daemon.loop) }
        }
        settle(daemon.loop)
        for client in clients { _ = available(client) }

        // The loop runs deferred tasks right after the dispatch, in the order they were
        // scheduled: one scheduled now runs after the device's read and before the flush the
        // read scheduled for the clients past the limit, and counts what the read wrote.
        var written = 0
        let count = try daemon.loop.deferredTask { written = clients.filter { !available($0).isEmpty }.count }
        try count.schedule()
        screen.trigger(1)
        #expect(daemon.loop.runOnce(), "the device's read was dispatched")
        #expect(written == limit)
        let late = clients.filter { !available($0).isEmpty }.count
        #expect(late == 3, "the rest by the deferred flush, before the loop waits again")
    }
}
