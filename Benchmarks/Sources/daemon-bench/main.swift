import GestureTestSupport
import Glibc
import SystemCalls

// The daemon benchmark (docs/performance.md, "Daemon (host)"): starts a release `gestured`
// and measures it from outside, over its real socket and /proc.
//
//   daemon-bench latency --gestured BIN --clients N [--seconds S]
//       N clients subscribed while `gestured run --replay` plays a 10-finger 240 Hz recording
//       at speed 1: delivery latency (receipt − event `time`) p50/p99/max over every gesture
//       line of every client, the daemon's CPU, RSS before/after and peak.
//   daemon-bench idle --gestured BIN [--seconds S] [--watchdog-usec U]
//       `gestured run --no-devices` with one idle subscribed client: context switches
//       (wakeups) per minute, CPU, RSS; with WATCHDOG_USEC the watchdog's pings.
//   daemon-bench soak --gestured BIN [--stalled N] [--seconds S]
//       N subscribed clients that never read and one that reads everything while the
//       10-finger recording loops: a new client's hello and status round trip every
//       second, the reader's delivery latency, the daemon's RSS over time, SIGTERM to exit
//       (Soak.swift).
//   daemon-bench reload --gestured BIN [--reloads N]
//       how long a SIGHUP reload holds the loop (RELOADING=1 to READY=1), for the shipped
//       configuration and the largest files the limits allow (Reload.swift).
//   daemon-bench recording FILE [--seconds S]
//       writes the synthetic recording alone.
//
// Only Glibc: no C target, so poll(2) rather than epoll (Glibc's module map has no sys/epoll.h).


struct Options {
    var command = ""
    var positional: [String] = []
    var gestured = ""
    var clients = 1
    var seconds = 10.0
    var watchdogUsec: Int?
    var stalled = 2000
    var reloads = 20
    var socket = ""

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        guard let command = rest.popFirst() else { throw BenchError("usage: daemon-bench latency|idle|recording …") }
        self.command = command
        while let argument = rest.popFirst() {
            func value() throws -> String {
                guard let value = rest.popFirst() else { throw BenchError("\(argument) needs a value") }
                return value
            }
            switch argument {
            case "--gestured": gestured = try value()
            case "--clients": clients = Int(try value()) ?? 0
            case "--seconds": seconds = Double(try value()) ?? 0
            case "--watchdog-usec": watchdogUsec = Int(try value())
            case "--stalled": stalled = Int(try value()) ?? 0
            case "--reloads": reloads = Int(try value()) ?? 0
            case "--socket": socket = try value()
            default: positional.append(argument)
            }
        }
        guard clients >= 1, seconds > 0 else { throw BenchError("--clients and --seconds must be positive") }
        if command != "recording", gestured.isEmpty { throw BenchError("--gestured BIN is required") }
    }
}

func mib(_ kib: Int) -> String {
    let tenths = (kib * 10 + 512) / 1024
    return "\(tenths / 10).\(tenths % 10) MiB"
}

func fixed(_ value: Double, _ decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    guard decimals > 0 else { return "\(scaled)" }
    let fraction = String(abs(scaled) % Int(scale))
    return "\(scaled < 0 ? "-" : "")\(abs(scaled) / Int(scale)).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
}

func milliseconds(_ micros: UInt64) -> String { fixed(Double(micros) / 1000, 2) + " ms" }

/// `gestured run --replay` of `recording` at speed 1 on a socket in `dir`, room for
/// `clients` clients, listening once this returns. `playback`: `--wait-for-subscriber`, `--loop`…
func startReplayDaemon(_ options: Options, in dir: String, recording: String, clients: Int, playback: [String]) throws -> (daemon: Child, socket: String) {
    try raiseFileLimit(atLeast: clients + 64)
    try writeFile("\(dir)/ten-fingers.events", recording)
    try writeFile("\(dir)/gestured.toml", """
        [daemon]
        max-clients = \(clients + 16)
        log-level = "warning"

        """)
    let socketPath = "\(dir)/gestured.sock"
    let daemon = try Child(path: options.gestured, arguments: [
        "run", "--replay", "\(dir)/ten-fingers.events", "--speed", "1",
        "--socket", socketPath, "--config", "\(dir)/gestured.toml", "--log-level", "warning",
    ] + playback)
    try waitForListener(socketPath)
    return (daemon, socketPath)
}

func latency(_ options: Options) throws {
    let n = options.clients
    let directory = TemporaryDirectory(prefix: "gestured-bench")
    defer { withExtendedLifetime(directory) {} }  // removed when the run ends, not at its last use
    let dir = directory.path
    let recording = TenFingerRecording.make(seconds: options.seconds)
    let (daemon, socketPath) = try startReplayDaemon(options, in: dir, recording: recording.text, clients: n, playback: ["--wait-for-subscriber"])
    sleepMilliseconds(200)
    let started = try ProcessSample(pid: daemon.pid)

    // N − 1 clients first: each is in once its hello arrived. Until a client subscribes it
    // receives every gesture (protocol.md), so they need not subscribe; the last one's
    // `subscribe` starts the replay (--wait-for-subscriber).
    let reader = LatencyReader()
    for _ in 0..<(n - 1) {
        guard let fd = connectUnix(socketPath) else { throw BenchError("connect failed after \(reader.count) clients") }
        let hello = try readLine(fd)
        guard case .hello? = message(hello) else { throw BenchError("client \(reader.count + 1) got \(hello)") }
        reader.add(fd)
    }
    guard let last = connectUnix(socketPath) else { throw BenchError("connect failed for the last client") }
    _ = try readLine(last)
    sleepMilliseconds(500)
    let connected = try ProcessSample(pid: daemon.pid)
    let ownStart = ownCPUMicroseconds()
    try subscribeToAll(last)
    reader.add(last)
    let allDone = reader.run(until: monotonicMicroseconds() + UInt64((options.seconds + 60) * 1_000_000))
    let loaded = try ProcessSample(pid: daemon.pid)
    let ownCPU = ownCPUMicroseconds() - ownStart
    daemon.signal(SIGTERM)
    let status = daemon.wait()

    let histogram = reader.histogram
    let counts = reader.gestureCounts
    let perClient = counts.first ?? 0
    let uneven = counts.contains { $0 != perClient }
    let playSeconds = Double(reader.lastGesture - reader.firstGesture) / 1_000_000
    print("clients:            \(n) (all measured: every gesture line of every client)")
    print("recording:          \(recording.frames) frames at 240 Hz, 10 fingers, \(fixed(Double(recording.frames) / 240)) s of touch")
    print("gesture lines:      \(histogram.count) received (\(perClient) per client\(uneven ? ", UNEVEN: min \(counts.min()!) max \(counts.max()!)" : "")), \(reader.droppedTotal) dropped (overflow)")
    print("bytes:              \(fixed(Double(reader.bytes) / 1_048_576)) MiB over \(fixed(playSeconds)) s")
    print("latency:            p50 \(milliseconds(histogram.percentile(0.5))), p99 \(milliseconds(histogram.percentile(0.99))), p99.9 \(milliseconds(histogram.percentile(0.999))), max \(milliseconds(histogram.maximum))\(histogram.above > 0 ? ", \(histogram.above) above 1 s" : "")\(histogram.negative > 0 ? ", \(histogram.negative) NEGATIVE" : "")")
    let cpu = ProcessSample.cpuPercent(from: connected, to: loaded)
    let cpuTicks = ProcessSample.cpuPercentFromTicks(from: connected, to: loaded)
    let wall = Double(loaded.time - connected.time) / 1_000_000
    print("daemon CPU:         \(fixed(cpu))% of one core over \(fixed(wall)) s (schedstat; utime+stime: \(fixed(cpuTicks))%), \(loaded.contextSwitches - connected.contextSwitches) context switches, \(loaded.threads) threads")
    print("daemon RSS split:   after the load: anonymous \(mib(loaded.anonymousKiB)), file \(mib(loaded.fileKiB)), PSS \(mib(loaded.proportionalKiB))")
    print("daemon RSS:         \(mib(started.residentKiB)) idle (no client), \(mib(connected.residentKiB)) with \(n) clients connected, \(mib(loaded.residentKiB)) after the load, peak (VmHWM) \(mib(loaded.peakResidentKiB))")
    print("benchmark client:   \(fixed(Double(ownCPU) / 1_000_000 / wall * 100))% of one core (one poll thread)")
    print("daemon exit:        \(status)\(allDone ? "" : " (TIMED OUT before every client saw the replay end)")")
    print("ROW| \(n) | \(milliseconds(histogram.percentile(0.5))) | \(milliseconds(histogram.percentile(0.99))) | \(milliseconds(histogram.maximum)) | \(histogram.count) | \(reader.droppedTotal) | \(fixed(cpu))% | \(mib(connected.residentKiB)) | \(mib(loaded.peakResidentKiB)) |")
    fflush(nil)
    if !allDone || uneven || status != 0 { throw BenchError("latency run incomplete") }
}

func idle(_ options: Options) throws {
    let directory = TemporaryDirectory(prefix: "gestured-bench")
    defer { withExtendedLifetime(directory) {} }  // removed when the run ends, not at its last use
    let dir = directory.path
    let socketPath = "\(dir)/gestured.sock"
    let notify = try NotifySocket(path: "\(dir)/notify")
    var environment = ["NOTIFY_SOCKET": notify.path]
    if let usec = options.watchdogUsec { environment["WATCHDOG_USEC"] = "\(usec)" }
    let daemon = try Child(path: options.gestured, arguments: ["run", "--no-devices", "--socket", socketPath, "--log-level", "warning"], environment: environment)
    try waitForListener(socketPath)
    guard let client = connectUnix(socketPath) else { throw BenchError("cannot connect") }
    defer { close(client) }
    _ = try readLine(client)
    try subscribeToAll(client)
    sleepMilliseconds(2000)
    _ = notify.drain()
    let start = try ProcessSample(pid: daemon.pid)
    sleepMilliseconds(Int(options.seconds * 1000))
    let end = try ProcessSample(pid: daemon.pid)
    let notifications = notify.drain()
    daemon.signal(SIGTERM)
    let status = daemon.wait()
    let minutes = Double(end.time - start.time) / 60_000_000
    let switches = end.contextSwitches - start.contextSwitches
    let pings = notifications.filter { $0.contains("WATCHDOG=1") }.count
    let label = options.watchdogUsec.map { "WATCHDOG_USEC=\($0)" } ?? "no watchdog"
    print("idle (\(label)), \(fixed(minutes * 60)) s, 1 subscribed idle client, --no-devices:")
    print("  wakeups:  \(switches) context switches (\(end.voluntarySwitches - start.voluntarySwitches) voluntary) = \(fixed(Double(switches) / minutes)) per minute, \(end.threads) threads")
    print("  CPU:      \(fixed(Double(end.cpuNanoseconds - start.cpuNanoseconds) / 1_000_000, 3)) ms on CPU (\(fixed(ProcessSample.cpuPercent(from: start, to: end), 4))% of one core); utime+stime \(end.cpuTicks - start.cpuTicks) ticks")
    print("  memory:   VmRSS \(mib(end.residentKiB)) (anonymous \(mib(end.anonymousKiB)), file \(mib(end.fileKiB)); PSS \(mib(end.proportionalKiB))), VmHWM \(mib(end.peakResidentKiB))")
    print("  notify:   \(pings) watchdog pings in the window; exit \(status)")
    defer { fflush(nil) }
    print("ROW| idle, \(label) | \(fixed(Double(switches) / minutes)) | \(fixed(Double(end.cpuNanoseconds - start.cpuNanoseconds) / 1_000_000 / minutes, 3)) ms/min | \(pings) | \(mib(end.residentKiB)) | \(mib(end.peakResidentKiB)) |")
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    switch options.command {
    case "latency": try latency(options)
    case "idle": try idle(options)
    case "soak": try soak(options)
    case "reload": try reload(options)
    case "soak-reader": try soakReader(options)
    case "recording":
        guard let path = options.positional.first else { throw BenchError("recording FILE") }
        let recording = TenFingerRecording.make(seconds: options.seconds)
        try writeFile(path, recording.text)
        print("\(path): \(recording.frames) frames")
    default: throw BenchError("unknown command \(options.command)")
    }
} catch {
    fflush(nil)
    let message = Array("daemon-bench: \(error)\n".utf8)
    _ = write(2, message, message.count)
    exit(1)
}
