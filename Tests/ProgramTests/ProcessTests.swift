import Foundation
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Testing

/// The built `gestured` executable, next to the test bundle.
func builtExecutable(_ name: String) throws -> String {
    var candidates: [String] = []
    let argv0 = CommandLine.arguments[0]
    candidates.append((argv0 as NSString).deletingLastPathComponent + "/" + name)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug/\(name)").path)
    for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
        return candidate
    }
    throw TestFailure(description: "\(name) not built (looked in \(candidates))")
}

/// `gestured run --no-devices` in a temporary directory, with a notify socket.
final class DaemonProcess {
    let directory = TemporaryDirectory()
    let process = Process()
    let notify: NotifySocket
    let socketPath: String
    let configPath: String
    let stderr: Pipe

    init(
        extraArguments: [String] = [], wrapper: [String] = [], environment extraEnvironment: [String: String] = [:],
        configuration: String = "# defaults\n", stderr: Pipe = Pipe.closingOnExec(), inputDirectory: String? = nil,
        socketName: String = "gestured.sock"
    ) throws {
        self.stderr = stderr
        socketPath = socketName.hasPrefix("/") ? socketName : directory.file(socketName)
        configPath = directory.file("gestured.toml")
        _ = FileManager.default.createFile(atPath: configPath, contents: Data(configuration.utf8))
        notify = try NotifySocket(path: directory.file("notify"))
        let gestured = try builtExecutable("gestured")
        let devices = inputDirectory.map { ["--input-directory", $0] } ?? ["--no-devices"]
        let arguments = ["run"] + devices + ["--socket", socketPath, "--config", configPath, "--log-level", "debug"] + extraArguments
        if wrapper.isEmpty {
            process.executableURL = URL(fileURLWithPath: gestured)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: wrapper[0])
            process.arguments = Array(wrapper.dropFirst()) + [gestured] + arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment.removeValue(forKey: "JOURNAL_STREAM")
        environment.removeValue(forKey: "LISTEN_FDS")
        environment.removeValue(forKey: "LISTEN_PID")
        environment.merge(extraEnvironment) { $1 }
        process.environment = environment
        process.standardError = stderr
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for exit (bounded) and returns the status.
    func waitForExit() throws -> Int32 {
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        if process.isRunning, done.wait(timeout: .now() + .seconds(10)) == .timedOut {
            throw TestFailure(description: "gestured did not exit")
        }
        return process.terminationStatus
    }

    var log: String {
        String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
    }
}

@Suite struct ProcessTests {
    @Test func notifiesReadinessStatusAndStoppingAndStopsCleanlyOnSIGTERM() throws {
        let daemon = try DaemonProcess()
        let ready = try daemon.notify.wait(for: "READY=1")
        #expect(ready.contains("STATUS=0 devices, 0 clients"))
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        #expect(try daemon.notify.wait(for: "STATUS=").contains("1 client"))
        daemon.signal(SIGTERM)
        _ = try daemon.notify.wait(for: "STOPPING=1")
        #expect(try client.readMessage().goodbye == "stopping")
        #expect(try daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    /// Run by hand (no systemd RuntimeDirectory=), the daemon creates the socket's missing
    /// directory instead of failing to bind.
    @Test func createsTheSocketDirectoryWhenMissing() throws {
        let daemon = try DaemonProcess(socketName: "run/gestured/gestured.sock")
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        #expect(try client.readMessage(\.hello).protocol == 1)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// A bad file on reload is reported and the old configuration stays: a missing one, and
    /// those that killed the running daemon on SIGHUP (a configuration that
    /// overflowed the parser's stack) or could block its reader. Each time the daemon serves
    /// a fresh client.
    @Test func reloadSurvivesHostileFiles() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.notify.wait(for: "READY=1")
        let hostile: [(String, () throws -> Void)] = [
            ("no such file", { try FileManager.default.removeItem(atPath: daemon.configPath) }),
            (
                "nest more than 16 deep",
                {
                    try ("a = " + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000) + "\n")
                        .write(toFile: daemon.configPath, atomically: false, encoding: .utf8)
                }
            ),
            (
                "more than 16 dotted parts",
                {
                    try ("[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n")
                        .write(toFile: daemon.configPath, atomically: false, encoding: .utf8)
                }
            ),
            (
                "is a FIFO",
                {
                    try FileManager.default.removeItem(atPath: daemon.configPath)
                    #expect(mkfifo(daemon.configPath, 0o600) == 0)
                }
            ),
            (
                "symlink loop",
                {
                    unlink(daemon.configPath)
                    #expect(symlink(daemon.configPath, daemon.configPath) == 0)
                }
            ),
        ]
        for (problem, write) in hostile {
            try write()
            daemon.signal(SIGHUP)
            _ = try daemon.notify.wait(for: "RELOADING=1")
            _ = try daemon.notify.wait(for: "READY=1")
            let client = try LineClient(path: daemon.socketPath)
            _ = try client.readMessage(\.hello)
            try client.sync()
            let log = daemon.log
            #expect(log.contains("reload failed, keeping the previous configuration"), "\(problem)")
            #expect(log.contains(problem), "\(problem)")
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func socketActivationUsesThePassedSocketAndLeavesItsFile() throws {
        let directory = TemporaryDirectory()
        let activated = directory.file("activated.sock")
        let daemon = try DaemonProcess(
            wrapper: ["/usr/bin/systemd-socket-activate", "-l", activated, "--fdname=gestured-test.socket", "-E", "NOTIFY_SOCKET"])
        // systemd-socket-activate listens first and starts gestured on the first connection.
        var client: LineClient? = nil
        for _ in 0..<1000 where client == nil {
            client = try? LineClient(path: activated)
            if client == nil { _ = waitReadable(daemon.notify.socket, milliseconds: 10) }
        }
        let connected = try #require(client)
        _ = try connected.readMessage(\.hello)
        _ = try daemon.notify.wait(for: "READY=1")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the --socket path is not bound under activation")
        #expect(daemon.log.contains("using the socket passed by systemd name=gestured-test.socket"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(try connected.readMessage().goodbye != nil)
        #expect(try daemon.waitForExit() == 0)
    }
}
