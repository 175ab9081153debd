import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Systemd
import Testing

@Suite struct ServiceTests {
    /// `WATCHDOG_USEC` with `WATCHDOG_PID` naming the daemon (the shell execs it, keeping its
    /// pid): the daemon's loop pings the notify socket by itself, again and again.
    @Test func watchdogPingsArriveOnTheNotifySocket() throws {
        let daemon = try DaemonProcess(
            wrapper: ["/bin/sh", "-c", #"WATCHDOG_PID=$$ exec "$0" "$@""#],
            environment: ["WATCHDOG_USEC": "200000"])
        _ = try daemon.notify.wait(for: "READY=1")
        _ = try daemon.notify.wait(for: "WATCHDOG=1")
        _ = try daemon.notify.wait(for: "WATCHDOG=1")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        #expect(daemon.log.contains("watchdog enabled"))
    }

    /// Watchdog variables systemd would not set stop the daemon at start with an error
    /// naming them (sd_watchdog_enabled's verdict), rather than a watchdog silently not kept.
    @Test(arguments: [
        ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "12x"], ["WATCHDOG_USEC": "-5"], ["WATCHDOG_USEC": "18446744073709551615"],
        ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "forty-two"], ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "0"],
    ])
    func malformedWatchdogVariablesStopTheDaemon(variables: [String: String]) throws {
        let daemon = try DaemonProcess(environment: variables)
        #expect(try daemon.waitForExit() != 0)
        let log = daemon.log
        #expect(log.contains("WATCHDOG_USEC=\(variables["WATCHDOG_USEC"]!)"), "\(log)")
        #expect(daemon.notify.drain().allSatisfy { !$0.contains("READY=1") })
    }

    /// Whether this process may mount in a mount namespace of its own (root, `unshare`): what
    /// `journalRecordsReachTheJournalThroughLibsystemd` needs to give `gestured` a journald
    /// socket of the test's own.
    static let canMountPrivately: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = try? runToCompletion(
            "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs tmpfs /run"])
        return probe?.status == 0
    }()

    /// Under systemd (`JOURNAL_STREAM` naming its stderr) the daemon's records reach journald
    /// through libsystemd's `sd_journal_sendv`, one native-protocol datagram each, with their
    /// fields: here journald's socket, `/run/systemd/journal/socket` (libsystemd's fixed
    /// path), is a link to a socket of the test's own, in a mount namespace of the daemon's.
    @Test(.enabled(if: canMountPrivately))
    func journalRecordsReachTheJournalThroughLibsystemd() throws {
        let directory = TemporaryDirectory()
        let journal = try NotifySocket(path: directory.file("journal.socket"))
        let stderr = Pipe.closingOnExec()
        var info = stat()
        #expect(fstat(stderr.fileHandleForWriting.fileDescriptor, &info) == 0)
        let namespace = """
            mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && ln -s "$JOURNAL" /run/systemd/journal/socket && exec "$0" "$@"
            """
        let daemon = try DaemonProcess(
            wrapper: ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", namespace],
            environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)", "JOURNAL": journal.path], stderr: stderr)
        _ = try daemon.notify.wait(for: "READY=1")
        let record = try journal.wait(for: "MESSAGE=ready")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let fields = Dictionary(
            record.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }, uniquingKeysWith: { first, _ in first })
        #expect(fields["MESSAGE"]?.hasPrefix("ready status=") == true, "\(record)")
        #expect(fields["PRIORITY"] == "6")
        #expect(fields["SYSLOG_IDENTIFIER"] == "gestured")
        #expect(fields["LOGGER"] == "gestured")
        #expect(fields["STATUS"] == "0 devices, 0 clients")
        #expect(fields["CODE_FILE"]?.hasSuffix("Daemon.swift") == true, "\(record)")
        #expect(fields["CODE_LINE"].flatMap { Int($0) } != nil)
        #expect(!daemon.log.contains("gestured: info:"), "logged to stderr too: \(daemon.log)")
    }

    /// The same through a real daemon: a hostile request line ends up escaped on stderr.
    @Test func aHostileRequestCannotForgeLogLines() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(#"{"type":"\u001b[31mred\ngestured: critical: forged\u0000"}"# + "\n")
        #expect(try client.readMessage().error != nil)
        try client.sync()
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let log = daemon.log
        #expect(log.contains(#"unknown request type \"\\u{1B}[31mred\\ngestured: critical: forged\\u{0}\""#), "\(log)")
        #expect(!log.contains("\u{1B}"))
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("gestured: critical: forged") })
    }

    /// With `JOURNAL_STREAM` naming the daemon's stderr, records go to the journal and none
    /// to stderr; with it naming something else, they go to stderr.
    @Test(arguments: [true, false])
    func logDestinationFollowsJournalStream(matching: Bool) throws {
        let stderr = Pipe.closingOnExec()
        var info = stat()
        #expect(fstat(stderr.fileHandleForWriting.fileDescriptor, &info) == 0)
        let inode = UInt64(info.st_ino) + (matching ? 0 : 1)
        let daemon = try DaemonProcess(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(inode)"], stderr: stderr)
        _ = try daemon.notify.wait(for: "READY=1")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let log = daemon.log
        if matching {
            #expect(!log.contains("gestured: info:"), "logged to stderr: \(log)")
        } else {
            #expect(log.contains("gestured: info: ready"))
        }
    }

    /// `allowed-users` is checked with SO_PEERCRED: root is in the list and served; a client
    /// running as nobody (through `setpriv`) is refused with an error line.
    @Test(
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/socat")))
    func allowListRefusesOtherUsers() throws {
        let daemon = try DaemonProcess(
            configuration: """
                [daemon]
                socket-mode = "0666"
                allowed-users = [0]
                """)
        chmod(daemon.directory.path, 0o755)
        _ = try daemon.notify.wait(for: "READY=1")
        let root = try LineClient(path: daemon.socketPath)
        #expect(try root.readMessage().hello != nil)

        let nobody = try runToCompletion(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/socat", "-T", "5", "-", "UNIX-CONNECT:" + daemon.socketPath,
            ])
        #expect(nobody.output == #"{"type":"error","message":"permission denied"}"# + "\n", "\(nobody)")
        try root.sync()
        try root.send(#"{"type":"status"}"# + "\n")
        let status = try root.readMessage(\.status)
        #expect(status.counters.rejected == 1)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// gesturectl exits with EX_UNAVAILABLE (69) and says why when nothing serves the socket:
    /// no socket file at all, or a stale one nobody listens on.
    @Test func gesturectlSaysTheDaemonIsNotRunning() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("missing.sock")
        for command in ["status", "subscribe", "ping"] {
            let result = try runToCompletion("gesturectl", [command, "--socket", missing])
            #expect(result.status == 69)
            #expect(result.output.isEmpty)
            #expect(result.error.contains("gestured is not running"), "\(result.error)")
            #expect(result.error.contains(missing))
        }
        let stale = directory.file("stale.sock")
        try UnixSocket.bind(.stream, to: stale).close()  // bound, never listening
        let result = try runToCompletion("gesturectl", ["status", "--socket", stale])
        #expect(result.status == 69)
        #expect(!result.error.isEmpty)
    }

    /// `gesturectl subscribe` trapped (SIGILL, a `try!` in a write) when its output was a
    /// pipe nobody reads any more with SIGPIPE ignored, or `/dev/full`. It now says why and
    /// exits with EX_IOERR (74).
    @Test(arguments: [("closed pipe", "Broken pipe"), ("/dev/full", "No space left on device")])
    func gesturectlEndsCleanlyWhenItsOutputFails(output: String, reason: String) throws {
        let daemon = try DaemonProcess()
        _ = try daemon.notify.wait(for: "READY=1")
        let gesturectl = Process()
        gesturectl.executableURL = URL(fileURLWithPath: "/bin/sh")
        // SIGPIPE ignored (as under some supervisors): the write itself fails.
        gesturectl.arguments = [
            "-c", #"trap "" PIPE; exec "$0" "$@""#, try builtExecutable("gesturectl"), "subscribe", "--socket", daemon.socketPath,
        ]
        let pipe = Pipe.closingOnExec()
        if output == "/dev/full" {
            gesturectl.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        } else {
            gesturectl.standardOutput = pipe
        }
        let error = Pipe.closingOnExec()
        gesturectl.standardError = error
        try gesturectl.run()
        try pipe.fileHandleForReading.close()  // nobody reads: the first line hits a closed pipe
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gesturectl.waitUntilExit()
        #expect(gesturectl.terminationReason == .exit)
        #expect(gesturectl.terminationStatus == 74, "\(message)")
        #expect(message.contains("gesturectl: cannot write to standard output: \(reason)"), "\(message)")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// The whole product on one machine without a touchscreen: `gestured run --replay` and
    /// `gesturectl subscribe` printing its gestures human-readably.
    @Test(.enabled(if: corpusRoot != nil, "needs the shared corpus"))
    func gesturectlSubscribePrintsGesturesFromARunReplayDaemon() throws {
        let recording = corpusRoot! + "/" + RunReplayTests.files[0]
        let daemon = try DaemonProcess(extraArguments: ["--replay", recording, "--speed", "40", "--wait-for-subscriber"])
        _ = try daemon.notify.wait(for: "READY=1")
        let gesturectl = Process()
        gesturectl.executableURL = URL(fileURLWithPath: try builtExecutable("gesturectl"))
        gesturectl.arguments = ["subscribe", "--socket", daemon.socketPath]
        let output = Pipe.closingOnExec()
        gesturectl.standardOutput = output
        try gesturectl.run()
        defer { if gesturectl.isRunning { gesturectl.terminate() } }
        let reader = LineReader(output)
        var lines: [String] = []
        while let line = reader.readText() {
            lines.append(line)
            if line.contains(" tap ended ") { break }
        }
        #expect(lines.first?.hasPrefix("# connected to gestured") == true, "\(lines)")
        #expect(lines.contains { $0.contains("device added: Atmel maXTouch Touchscreen") }, "\(lines)")
        #expect(lines.last?.contains("Atmel maXTouch Touchscreen [-] tap ended") == true, "\(lines)")
        #expect(lines.last?.contains("count=1") == true, "\(lines)")
        // Seconds and coordinates with three decimals ("12.345 … at (0.500, 0.250)").
        let threeDecimals = #/\d+\.\d{3} .* at \(\d+\.\d{3}, \d+\.\d{3}\) count=1/#
        #expect(lines.last.flatMap { $0.wholeMatch(of: threeDecimals) } != nil, "\(lines)")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// Live devices with no device at all (kiosk boot order): the daemon starts, follows the
    /// input directory with inotify, and looks at a node created later (here a plain file,
    /// which libevdev rejects, so it is reported and not used).
    @Test func startsWithoutDevicesAndNoticesNodesThatAppear() throws {
        let input = TemporaryDirectory()
        let daemon = try DaemonProcess(inputDirectory: input.path)
        _ = try daemon.notify.wait(for: "READY=1")
        let log = LineReader(daemon.stderr)
        var lines: [String] = []
        while let line = log.readText(), !line.contains("following hot-plug") { lines.append(line) }
        // Created in place (FileManager writes atomically: a rename, which is not a new node).
        let node = creat(input.file("event7"), 0o644)
        #expect(node >= 0)
        close(node)
        var notUsed: String?
        while let line = log.readText() {
            if line.contains("not using device") {
                notUsed = line
                break
            }
        }
        #expect(notUsed?.contains("node=\(input.file("event7"))") == true, "\(lines)")
        #expect(notUsed?.contains("cannot open") == true)
        let client = try LineClient(path: daemon.socketPath)
        #expect(try client.readMessage().hello?.devices.isEmpty == true)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}
