import Foundation
import GestureProtocol
import GestureTestSupport
import Glibc
import Testing

/// Every program finds the daemon's socket by GestureProtocol's one rule (`DaemonSocket`):
/// an explicit setting, else `$GESTURED_SOCKET`, else `/run/gestured/gestured.sock`. The
/// rule itself is tested in GestureProtocolTests; these run the built programs, so a
/// program that kept a default of its own fails here.
@Suite struct DaemonSocketRuleTests {
    /// The environment the programs run with: this one, with `GESTURED_SOCKET` set.
    static func environment(socket: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment[DaemonSocket.environmentVariable] = socket
        for variable in ["NOTIFY_SOCKET", "JOURNAL_STREAM", "LISTEN_FDS", "LISTEN_PID"] {
            environment.removeValue(forKey: variable)
        }
        return environment
    }

    /// `gestured` listens where `$GESTURED_SOCKET` says when its file does not set
    /// `[daemon] socket`, and where the file says when it does (check-config prints it).
    @Test func gesturedTakesTheVariableUnlessTheFileSetsTheSocket() throws {
        let directory = TemporaryDirectory()
        let moved = directory.file("moved.sock")
        let silent = directory.createFile("silent.toml", text: "[daemon]\nlog-level = \"info\"\n")
        let explicit = directory.createFile("explicit.toml", text: "[daemon]\nsocket = \"/tmp/from-the-file.sock\"\n")

        let fromVariable = try runToCompletion("gestured", ["check-config", silent], environment: Self.environment(socket: moved))
        #expect(fromVariable.status == 0, "\(fromVariable.error)")
        #expect(fromVariable.output.contains("socket \(moved)\n"), "\(fromVariable.output)")

        let fromFile = try runToCompletion("gestured", ["check-config", explicit], environment: Self.environment(socket: moved))
        #expect(fromFile.output.contains("socket /tmp/from-the-file.sock\n"), "\(fromFile.output)")

        // An empty variable is no setting (as in the Python client: `os.environ.get(…) or`).
        let empty = try runToCompletion("gestured", ["check-config", silent], environment: Self.environment(socket: ""))
        #expect(empty.output.contains("socket \(DaemonSocket.standardPath)\n"), "\(empty.output)")
    }

    /// `gesturectl` connects where `$GESTURED_SOCKET` says, and `--socket` wins over it.
    @Test func gesturectlTakesTheVariableUnlessGivenASocket() throws {
        let directory = TemporaryDirectory()
        let moved = directory.file("nobody-listens.sock")
        let fromVariable = try runToCompletion("gesturectl", ["ping"], environment: Self.environment(socket: moved))
        #expect(fromVariable.status != 0)
        #expect(fromVariable.error.contains(moved), "\(fromVariable.error)")

        let given = directory.file("given.sock")
        let explicit = try runToCompletion("gesturectl", ["ping", "--socket", given], environment: Self.environment(socket: moved))
        #expect(explicit.error.contains(given) && !explicit.error.contains(moved), "\(explicit.error)")
    }

    /// `gestured-web` connects its browsers to `$GESTURED_SOCKET`, and `--socket` wins over
    /// it. Regression: it took `DaemonSettings().socketPath`, so it ignored the variable and
    /// logged `daemon socket /run/gestured/gestured.sock` here (this test failed on that code).
    /// It listens on a Unix socket systemd-socket-activate passes it: no TCP port is taken.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")),
        arguments: [nil, "/tmp/given-on-the-command-line.sock"])
    func gesturedWebTakesTheVariableUnlessGivenASocket(explicit: String?) throws {
        let directory = TemporaryDirectory()
        let moved = directory.file("moved.sock")
        let notify = try NotifySocket(path: directory.file("notify"))
        let listening = directory.file("web.sock")
        let config = directory.createFile("gestured-web.toml", text: "# defaults\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        process.arguments =
            ["-l", listening, "-E", DaemonSocket.environmentVariable, "-E", "NOTIFY_SOCKET"]
            + [try builtExecutable("gestured-web"), "--config", config, "--web-root", directory.path]
            + (explicit.map { ["--socket", $0] } ?? [])
        var environment = Self.environment(socket: moved)
        environment["NOTIFY_SOCKET"] = notify.path
        process.environment = environment
        let stderr = Pipe.closingOnExec()
        process.standardError = stderr
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        // systemd-socket-activate starts gestured-web on the first connection.
        var connection: LineClient? = nil
        for _ in 0..<1000 where connection == nil {
            connection = try? LineClient(path: listening)
            if connection == nil { _ = waitReadable(notify.socket, milliseconds: 10) }
        }
        _ = try #require(connection)
        _ = try notify.wait(for: "READY=1")
        process.terminate()
        // STOPPING=1 says SIGTERM was taken. gestured-web installed its signal sources
        // only after READY=1, and a SIGTERM sent at once could land in between, be ignored
        // and leave it running (seen under load): that now fails here instead of hanging
        // in waitUntilExit.
        _ = try notify.wait(for: "STOPPING=1")
        process.waitUntilExit()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("daemon socket \(explicit ?? moved);"), "\(log)")
    }
}
