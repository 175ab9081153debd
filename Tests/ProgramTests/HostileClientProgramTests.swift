import Foundation
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Testing

/// gesturectl, the Swift client and the actions runner against a full daemon, a peer that
/// is not the daemon, and commands that leave children behind.
/// Every loop and wait is bounded; no verdict depends on speed.
@Suite(.serialized) struct HostileClientProgramTests {
    /// Before, against a daemon at its `max-clients`, `gesturectl status` printed
    /// `cannot use : send: Broken pipe` (no socket path, not the daemon's reason) and
    /// `gesturectl subscribe` exited 0. Fails on the earlier code: every command now
    /// exits 69 and names the socket and the daemon's refusal.
    @Test func everyCommandSaysWhyAFullDaemonRefusesItAndExitsNonZero() throws {
        let daemon = try DaemonProcess(configuration: "[daemon]\nmax-clients = 1\n")
        _ = try daemon.notify.wait(for: "READY=1")
        let holder = try LineClient(path: daemon.socketPath)
        #expect(holder.readLine()?.contains(#""type":"hello""#) == true)
        for command in ["status", "ping", "subscribe"] {
            let result = try runToCompletion("gesturectl", [command, "--socket", daemon.socketPath])
            #expect(result.status == 69, "\(command): \(result)")
            #expect(result.error.contains(daemon.socketPath), "\(command): \(result.error)")
            #expect(result.error.contains("too many clients"), "\(command): \(result.error)")
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// Before, a command that leaves a background child (`sleep 60 &`) counted as
    /// finished at once; the child escaped `timeout` and `overlap` and kept its standard
    /// error pipe, one descriptor of gesturectl's per trigger. Fails on the earlier
    /// code (the children lived 60 s): the command's process group goes with it.
    @Test func aCommandsBackgroundChildrenGoWithIt() throws {
        let directory = TemporaryDirectory()
        let pids = directory.file("pids")
        let actions = """
            [[action]]
            gesture = "tap"
            run = ["sh", "-c", "sleep 60 & echo $! >> \(pids)"]
            """
        let (daemon, runner) = try ActionsRunnerTests.replayWithActions(actions, in: directory)
        defer { runner.process.terminate() }
        try runner.waitForLine("exited with status 0")
        _ = try daemon.waitForExit()
        let children = try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        #expect(!children.isEmpty)
        // Each child is killed once its command has exited (a moment later: waited for as
        // long as any reply, `defaultWaitMilliseconds`, so a busy machine cannot fail it).
        let deadline = monotonicMicroseconds() + UInt64(defaultWaitMilliseconds) * 1000
        for child in children {
            var alive = isAlive(child)
            while alive && monotonicMicroseconds() < deadline {
                usleep(50_000)
                alive = isAlive(child)
            }
            #expect(!alive, "background child \(child) outlived its command")
            if alive { kill(child, SIGKILL) }
        }
        // No pipe of a finished command stays open in gesturectl.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(runner.process.processIdentifier)/fd")
        #expect(descriptors.count < 20, "gesturectl holds \(descriptors.count) descriptors")
    }

    /// Alive and not a zombie waiting for its reaper.
    private func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }
}
