import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Logging
import Recordings
import SystemCalls
import Systemd
import Testing

@testable import Daemon

/// Exhaustion degrades, never spins or grows without bound.
@Suite struct ExhaustionTests {
    /// On a virtual clock: `burst` records per kind per interval, kinds counted apart, and
    /// the first record after a held-back run says how many were held back.
    @Test func rateLimiterLetsABurstThroughPerIntervalAndCountsTheRest() {
        var limiter = LogRateLimiter(interval: .microseconds(1_000), burst: 3)
        func at(_ microseconds: UInt64) -> Timestamp { Timestamp(microseconds: microseconds) }
        #expect((0..<5).map { limiter.admit("a", now: at(100 + UInt64($0))) } == [0, 0, 0, nil, nil])
        #expect(limiter.admit("b", now: at(200)) == 0, "another kind has its own allowance")
        #expect(limiter.admit("a", now: at(1_099)) == nil, "the window started at 100")
        #expect(limiter.admit("a", now: at(1_100)) == 3, "a new window: three were held back")
        #expect(limiter.admit("a", now: at(1_101)) == 0)
        #expect(limiter.admit("a", now: .distantFuture) == 0, "no overflow at the end of time")
        #expect(limiter.admit("a", now: at(50)) == 0, "a moment before the window's start counts as no time elapsed, no trap")
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
