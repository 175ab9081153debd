import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage

/// Starts a program, its standard error (and output, unless `stdoutPath`) appended to
/// `logPath`, standard input `/dev/null`, extra `NAME=value` environment entries replacing
/// the driver's own of the same name. It inherits no other descriptor of the driver
/// (`Subprocess.spawn`): a daemon under test never holds a copy of another case's pipe or
/// device node.
func spawn(_ executable: String, _ arguments: [String], environment extra: [String] = [], logPath: String, stdoutPath: String? = nil)
    throws(CaseFailure) -> pid_t
{
    var options = Subprocess.Options()
    options.nullStandardInput = true
    options.environment = Subprocess.environment(Subprocess.environment(), overriddenBy: extra)
    do {
        // Started afresh unless only standard error goes there.
        let logOptions: FileDescriptor.OpenOptions =
            stdoutPath == nil ? [.create, .truncate, .append, .closeOnExec] : [.create, .append, .closeOnExec]
        let log = try FileDescriptor.open(logPath, .writeOnly, options: logOptions, permissions: [.ownerReadWrite, .groupRead, .otherRead])
        defer { try? log.close() }
        let output = try stdoutPath.map { path in
            try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        }
        defer { try? output?.close() }
        options.standardOutput = output ?? log
        options.standardError = log
        return try Subprocess.spawn(executable: executable, arguments: [executable] + arguments, options: options)
    } catch let error as SystemError {
        throw CaseFailure("cannot start \(executable): \(errorText(error.errno.rawValue))")
    } catch {
        throw CaseFailure("cannot start \(executable): \(error)")
    }
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

/// A file's size now (0 when there is none): a mark for `lines(of:since:)`.
func fileSize(_ path: String) -> Int {
    RegularFile.identity(path: path).map { Int($0.size) } ?? 0
}

/// The text of the file at `path` after its first `offset` bytes; nil when it cannot be opened.
private func text(of path: String, from offset: Int = 0) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    fseek(file, offset, SEEK_SET)
    var text: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        text += buffer[..<n]
    }
    return String(decoding: text, as: UTF8.self)
}

/// The lines of the file at `path` after its first `mark` bytes (a `fileSize`).
func lines(of path: String, since mark: Int) -> [String] {
    (text(of: path, from: mark) ?? "").split(separator: "\n").map(String.init)
}

/// The last `lines` lines of a file, for failure messages.
func tail(_ path: String, lines: Int = 8) -> String {
    guard let text = text(of: path) else { return "(no \(path))" }
    return text.split(separator: "\n").suffix(lines).joined(separator: " | ")
}

/// A running `gestured run`, started with a NOTIFY_SOCKET of the driver's own so its
/// readiness (`READY=1`) is known exactly, as systemd would know it.
final class DaemonProcess {
    let pid: pid_t
    let socketPath: String
    let logPath: String
    private(set) var exited: Int32?
    /// The datagram that carried `READY=1` (with the `STATUS=` line sent beside it).
    private(set) var readyMessage = ""

    /// Starts `gestured run --socket SOCKET --config CONFIG` and waits for `READY=1` (or its
    /// exit; `hangBound` only catches a hang). `launcher`: a command that runs the rest
    /// of its arguments in the same process (it ends in an `exec`), given before gestured's.
    init(
        executable: String, config: String, socketPath: String, logPath: String, extraArguments: [String] = [],
        launcher: [String] = []
    ) throws(CaseFailure) {
        self.socketPath = socketPath
        self.logPath = logPath
        let notify: NotifySocket
        do {
            notify = try NotifySocket(path: socketPath + ".notify")
        } catch {
            throw CaseFailure("cannot make the notify socket: \(error)")
        }
        let command = launcher + [executable, "run", "--socket", socketPath, "--config", config] + extraArguments
        pid = try spawn(
            command[0], Array(command.dropFirst()),
            environment: ["NOTIFY_SOCKET=\(notify.path)"], logPath: logPath)
        var code: Int32?
        defer { exited = code }
        readyMessage = try awaitReady("gestured", pid: pid, notify: notify, logPath: logPath) { code = $0 }
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
    var logSize: Int { fileSize(logPath) }

    /// The log lines written after `mark` (a `logSize`).
    func log(since mark: Int) -> [String] { lines(of: logPath, since: mark) }

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
