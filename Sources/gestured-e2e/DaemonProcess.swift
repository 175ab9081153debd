import GestureTestSupport
import Glibc
import SystemCalls

/// Starts a program with posix_spawn, its output to `logPath`, extra environment added.
func spawn(_ executable: String, _ arguments: [String], environment extra: [String] = [], logPath: String, stdoutPath: String? = nil)
    throws(CaseFailure) -> pid_t
{
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    var environment: [String] = []
    var index = 0
    while let entry = environ[index] {
        let text = String(cString: entry)
        if !extra.contains(where: { text.hasPrefix($0.prefix(while: { $0 != "=" }) + "=") }) { environment.append(text) }
        index += 1
    }
    environment += extra
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
        for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    do {
        try SystemCall.returnedErrno("posix_spawn", path: executable) { posix_spawn(&pid, executable, &actions, nil, argv, envp) }
    } catch {
        throw CaseFailure("cannot start \(executable): \(errorText(error.errno.rawValue))")
    }
    return pid
}

/// Waits for `pid` to exit, at most `timeout` seconds; nil when it is still running.
func waitForExit(_ pid: pid_t, timeout: Double) -> Int32? {
    let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
    while true {
        var status: Int32 = 0
        // WNOHANG: never interrupted; any failure (ECHILD) is -1 as before.
        let result = (try? SystemCall.posixBlocking("waitpid") { waitpid(pid, &status, WNOHANG) }) ?? -1
        if result == pid {
            // WIFEXITED / WEXITSTATUS, WTERMSIG spelled out (macros are not imported).
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
        if result < 0 { return -1 }
        if monotonicMicroseconds() >= deadline { return nil }
        pause(milliseconds: 10)
    }
}

/// The last `lines` lines of a file, for failure messages.
func tail(_ path: String, lines: Int = 8) -> String {
    guard let file = fopen(path, "r") else { return "(no \(path))" }
    defer { fclose(file) }
    var text: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        text += buffer[..<n]
    }
    let all = String(decoding: text, as: UTF8.self).split(separator: "\n")
    return all.suffix(lines).joined(separator: " | ")
}

/// A running `gestured run`, started with a NOTIFY_SOCKET of the driver's own so its
/// readiness (`READY=1`) is known exactly, as systemd would know it.
final class DaemonProcess {
    let pid: pid_t
    let socketPath: String
    let logPath: String
    private(set) var exited: Int32?

    /// Starts `gestured run --socket SOCKET --config CONFIG` and waits for `READY=1`.
    init(executable: String, config: String, socketPath: String, logPath: String, extraArguments: [String] = [], timeout: Double = 60)
        throws(CaseFailure)
    {
        self.socketPath = socketPath
        self.logPath = logPath
        let notify: NotifySocket
        do {
            notify = try NotifySocket(path: socketPath + ".notify")
        } catch {
            throw CaseFailure("cannot make the notify socket: \(error)")
        }
        pid = try spawn(
            executable, ["run", "--socket", socketPath, "--config", config] + extraArguments,
            environment: ["NOTIFY_SOCKET=\(notify.path)"], logPath: logPath)
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while true {
            if let message = notify.next(timeout: 100), message.split(separator: "\n").contains("READY=1") { return }
            if let code = waitForExit(pid, timeout: 0) {
                exited = code
                throw CaseFailure("gestured exited with \(code) before READY=1: \(tail(logPath))")
            }
            if monotonicMicroseconds() >= deadline {
                Subprocess.send(SIGKILL, to: pid)
                _ = waitForExit(pid, timeout: 5)
                throw CaseFailure("no READY=1 from gestured within \(Int(timeout)) s: \(tail(logPath))")
            }
        }
    }

    /// Whether the process is still running (reaps it when it is not).
    var isRunning: Bool {
        if exited != nil { return false }
        if let code = waitForExit(pid, timeout: 0) {
            exited = code
            return false
        }
        return true
    }

    func signal(_ number: Int32) { Subprocess.send(number, to: pid) }

    /// The log's size now: a mark for `log(since:)`.
    var logSize: Int {
        RegularFile.identity(path: logPath).map { Int($0.size) } ?? 0
    }

    /// The log lines written after `mark` (a `logSize`).
    func log(since mark: Int) -> [String] {
        guard let file = fopen(logPath, "r") else { return [] }
        defer { fclose(file) }
        fseek(file, mark, SEEK_SET)
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            text += buffer[..<n]
        }
        return String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// SIGTERM, then SIGKILL after `timeout` seconds; returns the exit status.
    @discardableResult
    func stop(timeout: Double = 15) -> Int32 {
        if let exited { return exited }
        Subprocess.send(SIGCONT, to: pid)
        Subprocess.send(SIGTERM, to: pid)
        if let code = waitForExit(pid, timeout: timeout) {
            exited = code
            return code
        }
        Subprocess.send(SIGKILL, to: pid)
        let code = waitForExit(pid, timeout: 5) ?? -1
        exited = code
        return code
    }

    deinit { stop() }
}

/// `gestured devices --config CONFIG`'s output (its files in `work`).
func devicesListing(gestured: String, config: String, work: String) throws(CaseFailure) -> String {
    let output = "\(work)/devices.txt"
    let pid = try spawn(gestured, ["devices", "--config", config], logPath: "\(work)/devices.log", stdoutPath: output)
    guard waitForExit(pid, timeout: 30) == 0 else { throw CaseFailure("gestured devices failed: \(tail("\(work)/devices.log"))") }
    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
}

/// The lines `gestured devices` prints for `node`: its own line and the indented ones below.
func listingBlock(_ listing: String, node: String) -> [String] {
    var block: [String] = []
    var inside = false
    for line in listing.split(separator: "\n", omittingEmptySubsequences: false) {
        if !line.hasPrefix(" ") { inside = line.hasPrefix(node + " ") || line == node }
        if inside { block.append(String(line)) }
    }
    return block
}
