import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Recordings
import SystemCalls
import Testing

/// Exhaustion degrades, never spins or grows without bound: the daemon process.
@Suite struct ExhaustionProgramTests {
    /// Out of descriptors, `accept` failed with EMFILE and the listener, still readable, was
    /// retried at once: 100 % CPU and 59 MB of identical log lines in 5 s. Now the listener
    /// rests until a client goes (or a second passes): one log line, and the waiting client
    /// is served as soon as a descriptor frees.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func runningOutOfDescriptorsPausesAcceptingInsteadOfSpinning() throws {
        let started = ContinuousClock.now
        let daemon = try DaemonProcess()
        _ = try daemon.notify.wait(for: "READY=1")
        let log = LineReader(daemon.stderr)
        let pid = daemon.process.processIdentifier
        // Room for exactly three clients: a new descriptor takes the lowest free number, and
        // the limit is on numbers, so the limit is where the third free number ends.
        let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
        var room = 0
        var end = 0
        while room < 3 {
            if !open.contains(end) { room += 1 }
            end += 1
        }
        let limit = try runToCompletion("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(end):\(end)"])
        #expect(limit.status == 0, "\(limit)")
        var clients: [LineClient] = []
        for _ in 0..<3 {
            let client = try LineClient(path: daemon.socketPath)
            _ = try client.readMessage(\.hello)
            clients.append(client)
        }
        let waiting = try LineClient(path: daemon.socketPath)  // in the backlog: no descriptor for it
        var lines: [String] = []
        while lines.count < 1000, let line = log.readText() {  // bounded: a spinning daemon floods
            lines.append(line)
            if line.contains("cannot accept connections") { break }
        }
        #expect(
            lines.last?.contains("cannot accept connections") == true && lines.last?.contains("Too many open files") == true,
            "\(lines.suffix(3))")
        clients.removeFirst()  // closes it: a descriptor frees
        #expect(try waiting.readMessage().hello != nil, "the waiting client is accepted and greeted")
        try clients[0].sync()
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        lines += daemon.log.split(separator: "\n").map(String.init)
        let failures = lines.filter { $0.contains("Too many open files") }
        #expect(failures.count <= Self.rateLimitBound(since: started), "at most one a second, 10 per 10 s: \(failures.count)")
    }

    /// Every refused connection logged a line: a flood of connections was a flood of
    /// lines. Ten per kind per 10 s pass, then one says how many were held back.
    @Test func refusedConnectionsDoNotFloodTheLog() throws {
        let started = ContinuousClock.now
        let daemon = try DaemonProcess(configuration: "[daemon]\nmax-clients = 1\n")
        _ = try daemon.notify.wait(for: "READY=1")
        let member = try LineClient(path: daemon.socketPath)
        _ = try member.readMessage(\.hello)
        for _ in 0..<200 {
            let refused = try LineClient(path: daemon.socketPath)
            #expect(try refused.readMessage().error != nil)
        }
        try member.send(#"{"type":"status"}"# + "\n")
        let status = try member.readMessage(\.status)
        #expect(status.counters.rejected == 200)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let refusals = daemon.log.split(separator: "\n").filter { $0.contains("refusing client") }
        #expect(refusals.count >= 10)
        #expect(refusals.count <= Self.rateLimitBound(since: started), "\(refusals.count) lines for 200 refusals")
    }

    /// The most lines of one kind the limiter lets through since `start`: 10 per started
    /// 10 s window (a slow machine may span several).
    static func rateLimitBound(since start: ContinuousClock.Instant) -> Int {
        10 * (Int((ContinuousClock.now - start) / .seconds(10)) + 1)
    }
}
