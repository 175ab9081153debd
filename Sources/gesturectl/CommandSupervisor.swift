import Actions
import Dispatch
import GestureCore
import GestureProtocol
import SystemCalls
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the commands of `run` actions on a thread of its own: starts them as
/// `RunScheduler` decides (overlap, timeout), signals them, logs their exit status and the
/// first lines of their standard error.
///
/// A command's process group is the unit: when the command itself exits, whatever it left
/// behind in its group (`sh -c "sleep 60 &"`) is killed with it (SIGKILL) and its standard
/// error pipe is closed, so a run never outlives its command, escapes `timeout` or
/// `overlap`, or keeps a descriptor of gesturectl's (docs/actions.md). The log is
/// rate-limited per kind of line and action (`LogRateLimiter`: 10 lines in 10 s, then a
/// count of those held back), so a trigger storm is not a log storm. One `poll` loop owns every child and the
/// scheduler; `trigger` (from any thread) and the per-child waiters (a blocking `waitpid`
/// each, on serial dispatch queues, whose threads are not Swift's cooperative pool) only
/// post inputs to it through a wake pipe.
final class CommandSupervisor: @unchecked Sendable {
    /// Lines of a command's standard error that are logged; the rest is read and dropped.
    static let loggedStderrLines = 5
    /// Longest stderr line logged (bytes); longer ones are cut.
    static let longestStderrLine = 512

    private enum Input {
        case trigger(action: Int, event: ActionEvent)
        case exited(RunScheduler.RunID, status: Int32)
    }

    /// A command's standard error being read.
    private struct StderrReader {
        let fd: FileDescriptor
        var excerpt = StderrExcerpt(lineLimit: CommandSupervisor.loggedStderrLines, lengthLimit: CommandSupervisor.longestStderrLine)
    }

    private let actions: [Action]
    private let inbox = LockedValue<[Input]>([])
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    // Owned by the supervisor thread.
    private var scheduler: RunScheduler
    private var processes: [RunScheduler.RunID: ChildProcess] = [:]
    private var readers: [RunScheduler.RunID: StderrReader] = [:]
    /// Which action each run alive belongs to.
    private var runActions: [RunScheduler.RunID: Int] = [:]
    private var logLimiter = LogRateLimiter()

    init(actions: [Action]) throws(ChildProcess.SpawnError) {
        self.actions = actions
        scheduler = RunScheduler(actions: actions)
        do throws(SystemError) {
            let ends = try Subprocess.pipe(nonBlocking: (read: true, write: true))
            wakeRead = ends.read
            wakeWrite = ends.write
        } catch {
            throw ChildProcess.SpawnError(program: "pipe", errno: error.errno.rawValue)
        }
    }

    /// Starts the supervisor's loop on a thread of its own.
    func start() {
        DispatchQueue(label: "gesturectl.actions.supervisor").async { [self] in loop() }
    }

    /// The `run` action at `index` matched `event` (called from any thread).
    func trigger(action index: Int, event: ActionEvent) {
        post(.trigger(action: index, event: event))
    }

    private func post(_ input: Input) {
        inbox.withLock { $0.append(input) }
        _ = try? wakeWrite.writeAll([UInt8(1)])  // a full pipe already wakes the loop
    }

    private func loop() {
        while true {
            var fds = [pollfd(fd: wakeRead.rawValue, events: Int16(POLLIN), revents: 0)]
            let ids = readers.keys.sorted()
            fds += ids.map { pollfd(fd: readers[$0]!.fd.rawValue, events: Int16(POLLIN), revents: 0) }
            do {
                _ = try Polling.poll(&fds, timeoutMilliseconds: timeoutMilliseconds())
            } catch {
                printError("actions: poll failed: \(error.reason)")
                return
            }
            for (index, id) in ids.enumerated() where fds[index + 1].revents != 0 {
                readStderr(id)
            }
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 256)
                while case .processed(let count)? = try? Polling.read(wakeRead, into: &drain), count > 0 {}
            }
            for input in inbox.withLock({ inputs in
                defer { inputs.removeAll() }
                return inputs
            }) {
                switch input {
                case .trigger(let action, let event):
                    carryOut(scheduler.triggered(action: action, event: event, now: now()))
                case .exited(let id, let status):
                    // What the command left in its group goes with it; its stderr pipe
                    // (which such a child may hold open) is read once more and closed.
                    processes[id]?.signal(SIGKILL)
                    processes[id] = nil
                    readStderr(id, final: true)
                    log("exited", id, "actions: \(id) of \(actions[actionIndex(of: id)].label) \(describe(status: status))")
                    runActions[id] = nil
                    carryOut(scheduler.exited(id, now: now()))
                }
            }
            carryOut(scheduler.advance(to: now()))
        }
    }

    private func actionIndex(of id: RunScheduler.RunID) -> Int {
        runActions[id] ?? 0
    }

    /// One log line of `kind` about `id`'s action, through the rate limiter.
    private func log(_ kind: String, _ id: RunScheduler.RunID, _ message: @autoclosure () -> String) {
        log(kind, action: actionIndex(of: id), message())
    }

    private func log(_ kind: String, action index: Int, _ message: @autoclosure () -> String) {
        guard let suppressed = logLimiter.admit("\(kind) \(index)", now: .zero + TimeSpan(now())) else { return }
        // The count first: a line's last word may be what a reader parses (the pid).
        printError((suppressed > 0 ? "(\(suppressed) similar lines not logged) " : "") + message())
    }

    private func carryOut(_ steps: [RunScheduler.Step]) {
        for step in steps {
            switch step {
            case .start(let id, let index, let event):
                start(id, action: index, event: event)
            case .skip(let index, let alive):
                log(
                    "skip", action: index,
                    "actions: \(actions[index].label) skipped: \(alive) earlier run(s) still alive (overlap = \"\(actions[index].overlap.rawValue)\")"
                )
            case .enqueue(let index, let waiting):
                log("queue", action: index, "actions: \(actions[index].label) queued (\(waiting) waiting)")
            case .dropQueued(let index):
                log("drop", action: index, "actions: \(actions[index].label) dropped: \(RunScheduler.queueLimit) triggers already waiting")
            case .terminate(let id):
                log("timeout", id, "actions: \(id) of \(actions[actionIndex(of: id)].label) timed out: SIGTERM")
                processes[id]?.signal(SIGTERM)
            case .kill(let id):
                log(
                    "kill", id,
                    "actions: \(id) of \(actions[actionIndex(of: id)].label) still running \(RunScheduler.killGrace) after SIGTERM: SIGKILL"
                )
                processes[id]?.signal(SIGKILL)
            case .ignored(let why):
                printError("actions: \(why)")
            }
        }
    }

    private func start(_ id: RunScheduler.RunID, action index: Int, event: ActionEvent) {
        let action = actions[index]
        guard case .run(let argv) = action.effect else {
            return  // only `run` actions are triggered here
        }
        runActions[id] = index
        do {
            let process = try ChildProcess.spawn(argv, extraEnvironment: event.environment)
            processes[id] = process
            readers[id] = StderrReader(fd: process.stderr)
            log(
                "start", id,
                "actions: \(id) of \(action.label) started for \(DisplayText.escaped(event.summary)): \(DisplayText.escaped(argv.joined(separator: " "))), pid \(process.pid)"
            )
            DispatchQueue(label: "gesturectl.actions.\(id)").async { [self] in
                post(.exited(id, status: Subprocess.reap(process.pid)))
            }
        } catch {
            log("spawn", action: index, "actions: \(action.label): \(DisplayText.escaped(error.description))")
            runActions[id] = nil
            carryOut(scheduler.exited(id, now: now()))
        }
    }

    /// Reads what the command wrote to stderr; logs its first lines, closes it at the end
    /// (or at once when `final`: the command has exited).
    private func readStderr(_ id: RunScheduler.RunID, final: Bool = false) {
        guard var reader = readers[id] else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ended = false
        reading: while true {
            switch try? Polling.read(reader.fd, into: &chunk) {
            case .processed(let count) where count > 0:
                let lines = reader.excerpt.append(chunk[..<count])
                for (index, line) in lines.enumerated() {
                    logStderr(id, line, isLast: reader.excerpt.isComplete && index == lines.count - 1)
                }
            case .processed, nil:  // the end, or an error: the stream is over either way
                ended = true
                break reading
            case .wouldBlock:
                break reading
            }
        }
        if ended || final {
            if let line = reader.excerpt.finish() { logStderr(id, line, isLast: reader.excerpt.isComplete) }
            try? reader.fd.close()
            readers[id] = nil
        } else {
            readers[id] = reader
        }
    }

    /// `isLast`: the last line that will be logged for this run.
    private func logStderr(_ id: RunScheduler.RunID, _ line: [UInt8], isLast: Bool) {
        let text = String(decoding: line, as: UTF8.self)
        let more = isLast ? " (further lines not logged)" : ""
        log("stderr", id, "actions: \(id) stderr: \(DisplayText.escaped(text))\(more)")
    }

    private func timeoutMilliseconds() -> Int32 {
        guard let deadline = scheduler.nextDeadline else { return -1 }
        let left = deadline - now()
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}

/// The monotonic clock as a duration since boot: the supervisor's "now".
func now() -> Duration {
    .microseconds(Int64(monotonicMicroseconds()))
}

/// `exited with status 1`, `killed by signal 15 (Terminated)`.
func describe(status: Int32) -> String {
    let signal = status & 0x7f
    if signal == 0 {
        return "exited with status \((status >> 8) & 0xff)"
    }
    let name = strsignal(signal).map { " (\(String(cString: $0)))" } ?? ""
    return "killed by signal \(signal)\(name)"
}
