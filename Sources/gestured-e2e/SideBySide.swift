import EvdevInput
import GestureCore
import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage

/// The side-by-side latency benchmark (`--side-by-side ROUNDS`, run by
/// `vm/benchmark-latency.sh`): gestured's socket delivery against a bare evdev → socket
/// forwarder, on the same uinput node in the same boot, alternating. Each round runs three
/// paths one after the other, each process started for its run and stopped after it, so
/// only one reader has the node open at a time:
///
/// 1. **bare forwarder**: this program again (`--forward NODE --forward-socket PATH`), which
///    reads the node with libevdev and writes one line per frame to its one client;
/// 2. **gestured, touch lines on**: `gestured run`, a client subscribed with `touches: true`;
/// 3. **gestured, gestures only**: the same, subscribed without touches.
///
/// One client measures all three the same way (`streamCircle`, one thread): receipt
/// (CLOCK_MONOTONIC right after the `recv` that completed the line) minus the line's `time`,
/// the kernel timestamp of the frame's events. Before the measured stroke every process gets
/// one unmeasured warm-up touch (`warmUpFrames`, the same circle, lifted): the first frames of
/// a process just started run its code for the first time (page faults, here through 9p, and
/// the emulator translating it), which says nothing about its steady state; the warm-up
/// touch's figures are printed apart as the cold start. Figures and their ratios to the
/// forwarder's are printed as `BENCH` lines; nothing is asserted but that lines arrived.
struct SideBySideCases {
    let gestured: String
    let work: String
    let elanDescription: String
    let rounds: Int
    let frames: Int
    let interval: Double
    let fingers: Int

    /// Frames of the warm-up touch each process gets before the measured stroke
    /// (`Run.warmUp`): 0.5 s at the default 5 ms interval.
    static let warmUpFrames = 100

    /// One path through which the frames reach the client.
    enum Path: CaseIterable {
        case forwarder, touches, gestures

        var label: String {
            switch self {
            case .forwarder: "bare forwarder"
            case .touches: "gestured (touch lines on)"
            case .gestures: "gestured (gestures only)"
            }
        }
    }

    /// One run's samples and the process's resident memory at its end.
    struct Run {
        /// The measured stroke, after the warm-up touch.
        let figures: LatencyFigures
        /// The warm-up touch: the process's cold start.
        let warmUp: LatencyFigures
        let residentKiB: Int
        /// What the process did over the run (page faults, context switches, CPU).
        let activity: ProcessActivity
    }

    func run(_ harness: Harness, ownPath: String) {
        var panel: TouchPanel?
        harness.run("side-by-side: a uinput ELAN touchscreen", always: true) {
            panel = try TouchPanel(descriptionFile: elanDescription, name: "e2e side-by-side ELAN Touchscreen")
        }
        guard let panel else { return }
        let configPath = "\(work)/side-by-side.toml"
        do {
            try writeFile(configPath, "# gestured's defaults: the configuration a packaged daemon starts with.\n")
        } catch {
            harness.fail("side-by-side: configuration", "\(error)")
            return
        }
        var runs: [Path: [Run]] = [:]
        for round in 1...rounds {
            for path in Path.allCases {
                harness.run("side-by-side: round \(round), \(path.label)") {
                    let result = try measure(path, on: panel, config: configPath, ownPath: ownPath)
                    runs[path, default: []].append(result)
                    say(
                        "BENCH side-by-side round \(round) \(path.label), \(fingers) fingers, \(frames) frames every \(interval) ms: \(result.figures), VmRSS \(result.residentKiB) KiB\(path == .forwarder ? " (this driver's binary: not a memory floor)" : "")"
                    )
                    say(
                        "  warm-up touch (\(Self.warmUpFrames) frames, cold start) apart: \(result.warmUp); worst after it: \(worst(result.figures)); over the run: \(result.activity)"
                    )
                }
            }
        }
        summarize(runs)
    }

    /// Starts the path's process, connects, streams the circle, stops the process.
    private func measure(_ path: Path, on panel: TouchPanel, config: String, ownPath: String) throws -> Run {
        let socketPath = "\(work)/side-by-side.sock"
        RegularFile.remove(path: socketPath)
        let pid: pid_t
        let reader: Subscriber
        var daemon: DaemonProcess?
        switch path {
        case .forwarder:
            pid = try spawn(
                ownPath, ["--forward", panel.devnode, "--forward-socket", socketPath], logPath: "\(work)/forwarder.log")
            reader = try connectWhenListening(socketPath, pid: pid)
        case .touches, .gestures:
            let process = try DaemonProcess(
                executable: gestured, config: config, socketPath: socketPath, logPath: "\(work)/side-by-side-gestured.log")
            daemon = process
            pid = process.pid
            reader = try Subscriber(socketPath: socketPath)
            let hello = try reader.subscribe(touches: path == .touches)
            try expect(hello.devices.contains { $0.name == panel.name }, "the daemon did not open \(panel.name)")
        }
        defer {
            if let daemon {
                daemon.stop()
            } else {
                Subprocess.send(SIGTERM, to: pid)
                _ = waitForExit(pid, timeout: 10)
            }
        }
        // The warm-up touch: the same for every path, unmeasured but for its figures, which
        // are the cold start (a process running its code for the first time).
        let warmUp = try latencies(
            streamCircle(on: panel, frames: Self.warmUpFrames, interval: interval, readers: [reader], fingers: fingers)[0])
        let before = ProcessActivity(pid)
        let samples = try latencies(streamCircle(on: panel, frames: frames, interval: interval, readers: [reader], fingers: fingers)[0])
        return Run(
            figures: LatencyFigures(samples: samples), warmUp: LatencyFigures(samples: warmUp), residentKiB: residentKiB(pid),
            activity: ProcessActivity(pid) - before)
    }

    /// Receipt − the line's `time` of every timed line, in µs.
    private func latencies(_ received: [Received]) throws(CaseFailure) -> [Int64] {
        let samples = received.compactMap { line -> Int64? in
            guard let time = WireScanner.unsigned(after: Array(#""time":"#.utf8), in: line.line) else { return nil }
            return Int64(line.receivedAt) - Int64(time)
        }
        try expect(!samples.isEmpty, "no timed line received")
        return samples
    }

    /// The forwarder's socket, as soon as it accepts connections (it opens the node first).
    private func connectWhenListening(_ path: String, pid: pid_t) throws(CaseFailure) -> Subscriber {
        let deadline = monotonicMicroseconds() + 30_000_000
        while true {
            if let client = try? Subscriber(socketPath: path) { return client }
            if let code = waitForExit(pid, timeout: 0) {
                throw CaseFailure("the forwarder exited with \(code): \(tail("\(work)/forwarder.log"))")
            }
            try expect(monotonicMicroseconds() < deadline, "the forwarder did not listen within 30 s")
            pause(milliseconds: 20)
        }
    }

    /// The five largest samples and where in the run they fell (sample index of all).
    private func worst(_ figures: LatencyFigures) -> String {
        figures.samples.enumerated().sorted { $0.element > $1.element }.prefix(5)
            .map { "\(Double($0.element / 10) / 100) ms at sample \($0.offset)" }.joined(separator: ", ")
    }

    /// Per path the spread over the rounds, and per round each path's ratio to the forwarder.
    private func summarize(_ runs: [Path: [Run]]) {
        func ms(_ us: Int64) -> String { "\(Double(us / 10) / 100)" }
        func ratio(_ a: Int64, _ b: Int64) -> String { b > 0 ? "\(Double(a * 100 / b) / 100)×" : "-" }
        for path in Path.allCases {
            let figures = (runs[path] ?? []).map(\.figures)
            guard !figures.isEmpty else { continue }
            func spread(_ value: (LatencyFigures) -> Int64) -> String {
                let values = figures.map(value)
                return "\(ms(values.min() ?? 0))–\(ms(values.max() ?? 0)) ms"
            }
            let memory = (runs[path] ?? []).map(\.residentKiB)
            let warmUps = (runs[path] ?? []).map { $0.warmUp.samples.max() ?? 0 }
            say(
                "BENCH side-by-side \(path.label) over \(figures.count) rounds: p50 \(spread { $0.percentile(0.5) }), p99 \(spread { $0.percentile(0.99) }), max \(spread { $0.samples.max() ?? 0 }) (warm-up touch, cold start: \(ms(warmUps.min() ?? 0))–\(ms(warmUps.max() ?? 0)) ms), VmRSS \(memory.min() ?? 0)–\(memory.max() ?? 0) KiB"
            )
        }
        let floors = runs[.forwarder] ?? []
        for path in [Path.touches, .gestures] {
            for (round, (run, floor)) in zip(runs[path] ?? [], floors).enumerated() {
                let (a, b) = (run.figures, floor.figures)
                say(
                    "BENCH side-by-side round \(round + 1) ratio \(path.label) / bare forwarder: p50 \(ratio(a.percentile(0.5), b.percentile(0.5))), p99 \(ratio(a.percentile(0.99), b.percentile(0.99))), max \(ratio(a.samples.max() ?? 0, b.samples.max() ?? 0))"
                )
            }
        }
    }
}

/// Counters of a process from `/proc/PID/stat` and `status`: page faults (minor: mapped
/// from memory; major: read from the file, here over 9p), context switches (voluntary: it
/// waited; involuntary: it was preempted) and CPU time.
struct ProcessActivity: CustomStringConvertible {
    var minorFaults = 0
    var majorFaults = 0
    var voluntarySwitches = 0
    var involuntarySwitches = 0
    var userTicks = 0
    var systemTicks = 0

    init(_ pid: pid_t) {
        let stat = tail("/proc/\(pid)/stat", lines: 1)
        // Fields after the command name, which is in parentheses and may hold spaces.
        if let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // state(3) ppid pgrp session tty tpgid flags minflt(10) cminflt majflt(12) cmajflt utime(14) stime(15)
            func field(_ number: Int) -> Int { fields.count > number - 3 ? Int(fields[number - 3]) ?? 0 : 0 }
            minorFaults = field(10)
            majorFaults = field(12)
            userTicks = field(14)
            systemTicks = field(15)
        }
        let status = tail("/proc/\(pid)/status", lines: 100).split(separator: "|")
        func value(_ key: String) -> Int {
            guard let line = status.first(where: { $0.drop { $0 == " " }.hasPrefix(key) }) else { return 0 }
            return Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
        voluntarySwitches = value("voluntary_ctxt_switches:")
        involuntarySwitches = value("nonvoluntary_ctxt_switches:")
    }

    private init() {}

    static func - (after: ProcessActivity, before: ProcessActivity) -> ProcessActivity {
        var difference = ProcessActivity()
        difference.minorFaults = after.minorFaults - before.minorFaults
        difference.majorFaults = after.majorFaults - before.majorFaults
        difference.voluntarySwitches = after.voluntarySwitches - before.voluntarySwitches
        difference.involuntarySwitches = after.involuntarySwitches - before.involuntarySwitches
        difference.userTicks = after.userTicks - before.userTicks
        difference.systemTicks = after.systemTicks - before.systemTicks
        return difference
    }

    var description: String {
        "\(minorFaults) minor and \(majorFaults) major page faults, \(voluntarySwitches) voluntary and \(involuntarySwitches) involuntary context switches, CPU \(userTicks * 10) ms user + \(systemTicks * 10) ms system"
    }
}

/// VmRSS of `pid` in KiB (0 when unreadable).
func residentKiB(_ pid: pid_t) -> Int {
    let status = tail("/proc/\(pid)/status", lines: 100)
    guard let field = status.split(separator: "|").first(where: { $0.contains("VmRSS:") }) else { return 0 }
    return Int(field.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// Writes `text` to `path`, replacing it.
func writeFile(_ path: String, _ text: String) throws(CaseFailure) {
    guard let file = fopen(path, "w") else { throw CaseFailure("cannot write \(path): \(errorText(errno))") }
    defer { fclose(file) }
    guard fputs(text, file) >= 0 else { throw CaseFailure("cannot write \(path): \(errorText(errno))") }
}

/// The bare evdev → socket forwarder, the floor of `SideBySideCases`: reads `node` with
/// libevdev (CLOCK_MONOTONIC), accepts one client on `socketPath`, and for every frame
/// writes one line `{"type":"frame","time":T}` (T: the `SYN_REPORT`'s kernel time, µs) to it
/// in one `send`, at once. Nothing else: no parsing of requests, no buffering, no timers.
/// Runs until SIGTERM or the client hangs up; returns the exit status.
func runBareForwarder(node: String, socketPath: String) -> Int32 {
    do {
        let device = try EvdevDevice(path: node)
        try device.useMonotonicClock()
        let listener = try UnixSocket.bind(.stream, to: socketPath)
        do {
            try SystemCall.posixBlocking("listen") { listen(listener.rawValue, 1) }
        } catch {
            throw CaseFailure("listen: \(errorText(error.errno.rawValue))")
        }
        let client: FileDescriptor
        do {
            client = FileDescriptor(rawValue: try SystemCall.posixBlocking("accept") { accept(listener.rawValue, nil, nil) })
        } catch {
            throw CaseFailure("accept: \(errorText(error.errno.rawValue))")
        }
        var line: [UInt8] = []
        line.reserveCapacity(64)
        while true {
            var descriptors = [
                pollfd(fd: device.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: client.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            do {
                _ = try Polling.poll(&descriptors, timeoutMilliseconds: -1)  // 0 when a signal interrupted it
            } catch {
                throw CaseFailure("poll: \(errorText(error.errno.rawValue))")
            }
            if descriptors[1].revents != 0 { return 0 }
            var failure: Error?
            let outcome = try device.readAvailable { event in
                guard event.type == EV.syn, event.code == SYN.report, failure == nil else { return }
                line.removeAll(keepingCapacity: true)
                line += #"{"type":"frame","time":"#.utf8
                line += String(event.time.microseconds).utf8
                line += "}\n".utf8
                do { _ = try client.writeAll(line) } catch { failure = error }
            }
            if let failure { throw failure }
            if case .deviceGone = outcome { return 0 }
        }
    } catch {
        say("gestured-e2e --forward: \(error)")
        return 1
    }
}
