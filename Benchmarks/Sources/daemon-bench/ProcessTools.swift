import Glibc
import SystemCalls

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func sleepMilliseconds(_ ms: Int) {
    var request = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
}

func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

func writeFile(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw BenchError("cannot write \(path)") }
}

/// Raises the soft RLIMIT_NOFILE to the hard limit (inherited by the daemon we start).
func raiseFileLimit(atLeast needed: Int) throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    guard Int(limit.rlim_cur) >= needed else {
        throw BenchError("RLIMIT_NOFILE hard limit \(limit.rlim_max) < \(needed) needed")
    }
}

/// A child process started with posix_spawn.
final class Child {
    let pid: pid_t
    private var exited = false
    /// The read end of the child's standard output, when captured.
    private var output: Int32 = -1

    init(path: String, arguments: [String], environment: [String: String] = [:], captureOutput: Bool = false) throws {
        var env: [String: String] = [:]
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            index += 1
        }
        for (key, value) in environment { env[key] = value }
        for key in ["WATCHDOG_USEC", "WATCHDOG_PID", "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM"] where environment[key] == nil {
            env[key] = nil
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeEnds) == 0 else { throw BenchError("pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        }
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        if captureOutput { close(pipeEnds[1]) }
        guard status == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(status)))") }
        self.pid = pid
        output = pipeEnds[0]
    }

    /// Everything the child wrote to its captured standard output, up to its end.
    func readOutput() -> String {
        guard output >= 0 else { return "" }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(output, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        close(output)
        output = -1
        return String(decoding: bytes, as: UTF8.self)
    }

    func signal(_ number: Int32) {
        if !exited { kill(pid, number) }
    }

    /// Waits for the child; returns its exit status (or 128 + signal).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        exited = true
        let signalled = status & 0x7F
        return signalled == 0 ? (status >> 8) & 0xFF : 128 + signalled
    }

    deinit {
        if !exited {
            kill(pid, SIGKILL)
            wait()
        }
    }
}

/// What /proc says about a process at one moment.
struct ProcessSample {
    /// utime + stime of all threads, in clock ticks.
    var cpuTicks: Int
    /// Time on CPU of all threads (schedstat), in nanoseconds.
    var cpuNanoseconds: UInt64
    /// Voluntary + involuntary context switches of all threads.
    var contextSwitches: Int
    var voluntarySwitches: Int
    var threads: Int
    /// VmRSS and VmHWM in KiB.
    var residentKiB: Int
    var peakResidentKiB: Int
    /// VmRSS split: anonymous (heap, stacks) and file-backed (the binary and its libraries,
    /// pages shared with every other process that maps them); PSS counts shared pages
    /// divided among their users.
    var anonymousKiB: Int
    var fileKiB: Int
    var proportionalKiB: Int
    var time: UInt64

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    init(pid: pid_t) throws {
        time = monotonicMicroseconds()
        guard let stat = readFile("/proc/\(pid)/stat"), let status = readFile("/proc/\(pid)/status") else {
            throw BenchError("process \(pid) is gone")
        }
        // Fields after the command name (which is in parentheses and may hold spaces).
        let afterName = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        // afterName[0] is field 3 (state): utime is field 14, stime 15.
        cpuTicks = Int(afterName[11])! + Int(afterName[12])!
        func field(_ text: String, _ name: String) -> Int {
            for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
                return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "0") ?? 0
            }
            return 0
        }
        residentKiB = field(status, "VmRSS")
        peakResidentKiB = field(status, "VmHWM")
        threads = field(status, "Threads")
        anonymousKiB = field(status, "RssAnon")
        fileKiB = field(status, "RssFile")
        proportionalKiB = readFile("/proc/\(pid)/smaps_rollup").map { field($0, "Pss") } ?? 0
        contextSwitches = 0
        voluntarySwitches = 0
        cpuNanoseconds = 0
        guard let dir = opendir("/proc/\(pid)/task") else { throw BenchError("process \(pid) is gone") }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            if let taskStatus = readFile("/proc/\(pid)/task/\(name)/status") {
                let voluntary = field(taskStatus, "voluntary_ctxt_switches")
                voluntarySwitches += voluntary
                contextSwitches += voluntary + field(taskStatus, "nonvoluntary_ctxt_switches")
            }
            if let schedstat = readFile("/proc/\(pid)/task/\(name)/schedstat"),
               let onCPU = schedstat.split(separator: " ").first.flatMap({ UInt64($0) }) {
                cpuNanoseconds += onCPU
            }
        }
    }

    /// CPU used between two samples, as a percentage of one core (from schedstat, ns resolution).
    static func cpuPercent(from start: ProcessSample, to end: ProcessSample) -> Double {
        let wall = Double(end.time - start.time) * 1000
        return wall > 0 ? Double(end.cpuNanoseconds - start.cpuNanoseconds) / wall * 100 : 0
    }

    /// The same from utime + stime (clock-tick resolution).
    static func cpuPercentFromTicks(from start: ProcessSample, to end: ProcessSample) -> Double {
        let wall = Double(end.time - start.time) / 1_000_000
        return wall > 0 ? Double(end.cpuTicks - start.cpuTicks) / ticksPerSecond / wall * 100 : 0
    }
}

/// This process's own CPU time (user + system), microseconds.
func ownCPUMicroseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return UInt64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + UInt64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}
