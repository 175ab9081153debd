import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Logging
import Recordings
import SystemCalls
import Testing

@testable import Daemon

/// Exhaustion degrades, never spins or grows without bound (issue 13).
@Suite struct ExhaustionTests {
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

    /// On a virtual clock: `burst` records per kind per interval, kinds counted apart, and
    /// the first record after a held-back run says how many were held back.
    @Test func rateLimiterLetsABurstThroughPerIntervalAndCountsTheRest() {
        var limiter = LogRateLimiter(interval: 1_000, burst: 3)
        #expect((0..<5).map { limiter.admit("a", now: 100 + UInt64($0)) } == [0, 0, 0, nil, nil])
        #expect(limiter.admit("b", now: 200) == 0, "another kind has its own allowance")
        #expect(limiter.admit("a", now: 1_099) == nil, "the window started at 100")
        #expect(limiter.admit("a", now: 1_100) == 3, "a new window: three were held back")
        #expect(limiter.admit("a", now: 1_101) == 0)
        #expect(limiter.admit("a", now: UInt64.max) == 0, "no overflow at the end of time")
    }

    /// The most lines of one kind the limiter lets through since `start`: 10 per started
    /// 10 s window (a slow machine may span several).
    static func rateLimitBound(since start: ContinuousClock.Instant) -> Int {
        10 * (Int((ContinuousClock.now - start) / .seconds(10)) + 1)
    }

    /// 63 stalled clients with `client-queue` at its maximum grew the daemon to 1.88 GB.
    /// All queues together now stay within `queue-memory`: a stalled client is cut back to
    /// its share (and told how much it lost), while a client that reads loses nothing.
    @Test func stalledClientsShareABoundedMemoryBudget() throws {
        let screen = try PipeSource(name: "screen")
        screen.script[1] = Array(repeating: drag(.changed), count: 200)
        var settings = DaemonSettings()
        settings.clientQueueLength = 1_048_576
        settings.queueMemory = 256 << 10
        settings.maxClients = 100
        let daemon = try InProcessDaemon(settings: settings, devices: [screen])
        let stalled = try (0..<20).map { _ in try LineClient(path: daemon.socketPath) }
        let reader = try LineClient(path: daemon.socketPath)
        _ = try reader.readMessage(\.hello)
        let bursts = 20
        for burst in 0..<bursts {
            screen.trigger(1)
            for i in 0..<200 {
                let event = try reader.readMessage()
                #expect(event.gesture != nil, "the reader loses nothing: \(event)")
                #expect(event.gesture?.seq == UInt64(burst * 200 + i + 1))
            }
        }
        // 21 clients: a share is about 12 KiB, so at most some 60 lines (of about 400
        // bytes) can follow a stalled client's last overflow notice: the queue within its
        // share, plus one refill of the same size.
        let share = (256 << 10) / 21
        for client in stalled {
            var afterOverflow = 0
            var overflows = 0
            var received = 0
            var lost = 0
            while received + lost < bursts * 200 {
                switch try client.readMessage() {
                case .overflow(let dropped):
                    overflows += 1
                    lost += Int(dropped)
                    afterOverflow = 0
                case .gesture:
                    received += 1
                    afterOverflow += 1
                case .hello, .touch, .device, .activity, .pong, .status, .metrics, .error, .goodbye, .unknown:
                    continue
                }
            }
            #expect(overflows > 0)
            #expect(afterOverflow * 300 <= 2 * share + 4096, "\(afterOverflow) lines queued after the last notice")
        }
    }

    /// A replay running behind (here: everything due at once) plays at most 256 events per
    /// dispatch and asks to be called again, so clients and signals are served in between.
    @Test func aReplayBehindScheduleWorksInBoundedSteps() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path
        let recording = try #require(try RecordingReader.read(path: demo).first)
        #expect(recording.events.count > 1000)
        let directory = TemporaryDirectory()
        let loop = try EventLoop()
        let listener = try UnixListener(path: directory.file("g.sock"), mode: 0o600, group: nil)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = try SocketServer(
            loop: loop, listener: listener, settings: DaemonSettings(), state: DaemonState(version: "test"), logger: logger)
        let source = ReplaySource(
            description: recording.device, events: recording.events, path: demo,
            configuration: Configuration(), speed: 1, now: 1_000_000)
        var sink = DaemonSink(server: server, ids: GestureIDAllocator(), device: recording.device.name)
        let farFuture = Timestamp(microseconds: 1 << 60)
        var calls = 0
        var status = InputStatus.active
        while status == .active, calls < 1000 {
            status = source.deadlineReached(now: farFuture, into: &sink)
            calls += 1
            if status == .active { #expect(try #require(source.nextDeadline) <= farFuture, "more is due at once") }
        }
        #expect(status == .finished(reason: "end of recording"))
        #expect(calls >= recording.events.count / 256, "\(calls) calls for \(recording.events.count) events")
        server.stop(reason: "test")
    }
}
