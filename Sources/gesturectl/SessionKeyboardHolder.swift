import Actions
import Dispatch
import GestureCore
import SystemCalls
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a keyboard on the session's seat while gesturectl runs (`SessionTypist.keyboardHolder`):
/// starts the holder on a thread of its own, its standard input a pipe only gesturectl
/// holds, and starts it again whenever it exits (the compositor restarted, or dropped the
/// client), after `ReconnectBackoff`'s delay: 100 ms after a holder that ran
/// `SessionTypist.holderHeld`, doubling up to `SessionTypist.holderLongestBackoff` while
/// it fails at once, so a compositor without the protocol costs one line a minute, not a
/// spin. When gesturectl exits or is killed, the pipe closes and the holder exits with it.
final class SessionKeyboardHolder: @unchecked Sendable {
    private let argv: [String]

    init(argv: [String]) {
        self.argv = argv
    }

    /// Starts holding on a thread of its own.
    func start() {
        DispatchQueue(label: "gesturectl.actions.keyboard-holder").async { [self] in hold() }
    }

    private func hold() {
        var backoff = ReconnectBackoff(longest: SessionTypist.holderLongestBackoff)
        let command = argv.joined(separator: " ")
        while true {
            let started = now()
            let outcome = runOnce()
            let ran = now() - started
            if ran >= SessionTypist.holderHeld { backoff.connected() }
            let delay = backoff.failed()
            printError(
                "actions: the session's keyboard (\(command)) \(outcome) after \(ran.components.seconds) s; starting it again in \(delay)")
            sleepMicroseconds(UInt64(delay / .microseconds(1)))
        }
    }

    /// Runs the holder until it exits; what happened, for the log.
    private func runOnce() -> String {
        let feed: (read: FileDescriptor, write: FileDescriptor)
        do throws(SystemError) {
            feed = try Subprocess.pipe()
        } catch {
            return "could not start: pipe: \(error.reason)"
        }
        defer { try? feed.write.close() }
        let process: ChildProcess
        do throws(ChildProcess.SpawnError) {
            defer { try? feed.read.close() }
            process = try ChildProcess.spawn(argv, extraEnvironment: [], standardInput: feed.read)
        } catch {
            return "could not start: \(DisplayText.escaped(error.description))"
        }
        // The pid last: a line's last word may be what a reader parses.
        printError(
            "actions: holding a keyboard on the session's seat, so that clients have one before a chord is typed (docs/actions.md): "
                + "\(argv.joined(separator: " ")), pid \(process.pid)")
        let status = Subprocess.reap(process.pid)
        process.signal(SIGKILL)  // what it left in its group
        var excerpt = StderrExcerpt(lineLimit: 1, lengthLimit: CommandSupervisor.longestStderrLine)
        var chunk = [UInt8](repeating: 0, count: 4096)
        var said: [String] = []
        while case .processed(let count)? = try? Polling.read(process.stderr, into: &chunk), count > 0 {
            said += excerpt.append(chunk[..<count]).map { String(decoding: $0, as: UTF8.self) }
        }
        if let last = excerpt.finish() { said.append(String(decoding: last, as: UTF8.self)) }
        try? process.stderr.close()
        return describe(status: status) + (said.first.map { ": \(DisplayText.escaped($0))" } ?? "")
    }
}
