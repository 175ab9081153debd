import GestureTestSupport
import Glibc
import SystemCalls

// The soak (docs/performance.md, "Soak"): `stalled` subscribers that never read
// a byte and one that reads everything, while `gestured run --replay --loop` plays ten
// fingers at 240 Hz, for `seconds`. Every second a fresh client connects and times its
// `hello` and a `status` round trip; the daemon's resident memory is sampled; at the end
// SIGTERM is timed until the daemon has exited. The reading client runs in a child process
// (`daemon-bench soak-reader`) so that probing never delays its reads.

/// A client that connects, times `hello`, sends `status` and times the reply.
struct Probe {
    var hello: UInt64
    var status: UInt64

    /// nil when the daemon did not answer within `timeout` µs.
    static func run(_ socketPath: String, timeout: UInt64 = 10_000_000) -> Probe? {
        let start = monotonicMicroseconds()
        guard let fd = connectUnix(socketPath) else { return nil }
        defer { close(fd) }
        setNonBlocking(fd)
        var reader = TimedLineReader(fd: fd)
        guard let hello = reader.line(before: start + timeout), case .hello? = message(hello) else { return nil }
        let helloTime = monotonicMicroseconds() - start
        let asked = monotonicMicroseconds()
        guard (try? send(.status, to: fd)) != nil else { return nil }
        while let line = reader.line(before: asked + timeout) {
            if case .status? = message(line) { return Probe(hello: helloTime, status: monotonicMicroseconds() - asked) }
        }
        return nil
    }
}

/// Lines from a non-blocking socket, waiting with poll(2) up to a deadline.
struct TimedLineReader {
    let fd: Int32
    private var pending: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
    }

    mutating func line(before deadline: UInt64) -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let now = monotonicMicroseconds()
            guard now < deadline else { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, Int32((deadline - now) / 1000 + 1))
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return nil }
            if count > 0 { pending.append(contentsOf: chunk[0..<count]) }
        }
    }
}

/// Percentiles of a list of durations (µs).
struct Durations {
    private(set) var values: [UInt64] = []

    mutating func add(_ value: UInt64) { values.append(value) }

    func percentile(_ fraction: Double) -> UInt64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    var summary: String {
        "p50 \(milliseconds(percentile(0.5))), p99 \(milliseconds(percentile(0.99))), max \(milliseconds(percentile(1)))"
    }
}

func soak(_ options: Options) throws {
    let stalledCount = options.stalled
    let directory = TemporaryDirectory(prefix: "gestured-bench")
    defer { withExtendedLifetime(directory) {} }  // removed when the run ends, not at its last use
    let dir = directory.path
    // Twenty seconds of ten fingers, looped for the whole soak.
    let (daemon, socketPath) = try startReplayDaemon(options, in: dir, recording: TenFingerRecording.make(seconds: 20).text,
                                                     clients: stalledCount + 2, playback: ["--loop"])
    let idle = try ProcessSample(pid: daemon.pid)

    // The stalled: subscribed, never reading (their socket buffers fill, then the daemon's queues).
    var stalled: [Int32] = []
    for _ in 0..<stalledCount {
        guard let fd = connectUnix(socketPath) else { throw BenchError("connect failed after \(stalled.count) stalled clients") }
        try subscribeToAll(fd)
        stalled.append(fd)
    }
    defer { stalled.forEach { close($0) } }
    let reader = try Child(path: CommandLine.arguments[0], arguments: [
        "soak-reader", "--socket", socketPath, "--seconds", "\(options.seconds + 2)", "--gestured", options.gestured,
    ], captureOutput: true)

    let start = monotonicMicroseconds()
    let connected = try ProcessSample(pid: daemon.pid)
    var hello = Durations()
    var status = Durations()
    var worst: (second: Int, hello: UInt64, status: UInt64) = (0, 0, 0)
    var unanswered = 0
    var samples: [(seconds: Int, kib: Int)] = []
    var second = 0
    while monotonicMicroseconds() < start + UInt64(options.seconds * 1_000_000) {
        second += 1
        if let probe = Probe.run(socketPath) {
            hello.add(probe.hello)
            status.add(probe.status)
            if probe.hello + probe.status > worst.hello + worst.status { worst = (second, probe.hello, probe.status) }
        } else {
            unanswered += 1
        }
        let sample = try ProcessSample(pid: daemon.pid)
        if second == 1 || second % 60 == 0 { samples.append((second, sample.residentKiB)) }
        let next = start + UInt64(second) * 1_000_000
        let now = monotonicMicroseconds()
        if next > now { sleepMilliseconds(Int((next - now) / 1000)) }
    }
    let loaded = try ProcessSample(pid: daemon.pid)
    let stopAsked = monotonicMicroseconds()
    daemon.signal(SIGTERM)
    let exit = daemon.wait()
    let stopTime = monotonicMicroseconds() - stopAsked
    let readerOutput = reader.readOutput()
    reader.wait()

    let cpu = ProcessSample.cpuPercent(from: connected, to: loaded)
    print("stalled clients:    \(stalledCount) subscribed, never reading; 1 reading client; ten fingers at 240 Hz looped, \(fixed(Double(loaded.time - start) / 1_000_000, 0)) s")
    print("new client hello:   \(hello.summary) (\(hello.values.count) probes, \(unanswered) unanswered within 10 s)")
    print("status round trip:  \(status.summary); the slowest probe at \(worst.second) s (hello \(milliseconds(worst.hello)), status \(milliseconds(worst.status)))")
    print("reading client:     \(readerOutput.split(separator: "\n").first(where: { $0.hasPrefix("latency") }) ?? "no report")")
    print("daemon RSS:         \(mib(idle.residentKiB)) before the clients, \(mib(connected.residentKiB)) with them connected; " +
          samples.map { "\(mib($0.kib)) at \($0.seconds) s" }.joined(separator: ", ") + "; \(mib(loaded.residentKiB)) at the end, peak (VmHWM) \(mib(loaded.peakResidentKiB))")
    print("daemon CPU:         \(fixed(cpu))% of one core")
    print("SIGTERM to exit:    \(milliseconds(stopTime)) (exit status \(exit))")
    let readerLatency = readerOutput.split(separator: "\n").first(where: { $0.hasPrefix("ROW|") }).map { String($0.dropFirst(4)) } ?? " ? | ? |"
    print("ROW| \(stalledCount) + 1 | \(fixed(Double(loaded.time - start) / 1_000_000, 0)) s | \(milliseconds(hello.percentile(0.5))) / \(milliseconds(hello.percentile(1))) | \(milliseconds(status.percentile(0.5))) / \(milliseconds(status.percentile(1))) |\(readerLatency) \(mib(connected.residentKiB)) | \(mib(loaded.residentKiB)) | \(mib(loaded.peakResidentKiB)) | \(fixed(cpu))% | \(milliseconds(stopTime)) |")
    fflush(nil)
    if unanswered > 0 || exit != 0 { throw BenchError("soak: \(unanswered) probes unanswered, exit \(exit)") }
}

/// The soak's reading client: subscribes and reads everything for `seconds`, then prints
/// its delivery latency and how many events it lost.
func soakReader(_ options: Options) throws {
    guard let fd = connectUnix(options.socket) else { throw BenchError("cannot connect to \(options.socket)") }
    _ = try readLine(fd)
    try subscribeToAll(fd)
    let reader = LatencyReader()
    reader.add(fd)
    _ = reader.run(until: monotonicMicroseconds() + UInt64(options.seconds * 1_000_000))
    let histogram = reader.histogram
    print("latency p50 \(milliseconds(histogram.percentile(0.5))), p99 \(milliseconds(histogram.percentile(0.99))), max \(milliseconds(histogram.maximum)) over \(histogram.count) gesture lines, \(reader.droppedTotal) dropped")
    print("ROW| \(milliseconds(histogram.percentile(0.5))) / \(milliseconds(histogram.percentile(0.99))) / \(milliseconds(histogram.maximum)) | \(reader.droppedTotal) |")
    fflush(nil)
}
