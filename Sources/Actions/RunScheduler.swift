/// Decides when the commands of `run` actions start and when they are stopped: the
/// `overlap` policy (skip, queue, parallel) and the `timeout` (SIGTERM, then SIGKILL after
/// `killGrace`). Pure: time comes in with every input (a duration since any fixed start),
/// the caller carries out the steps it returns (spawn, signal) and reports exits back.
/// Tests drive it with a virtual clock.
public struct RunScheduler: Sendable {
    /// Identifies one run of a command for the scheduler and its caller.
    public struct RunID: Sendable, Hashable, Comparable, CustomStringConvertible {
        public let value: UInt64
        public static func < (a: RunID, b: RunID) -> Bool { a.value < b.value }
        public var description: String { "run \(value)" }
    }

    /// What the caller must do (or may log) after an input.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// Start the action's command for this event.
        case start(RunID, action: Int, event: ActionEvent)
        /// The action triggered while its earlier run is alive (`overlap = "skip"`), or it
        /// already has `parallelLimit` runs (`"parallel"`): nothing starts.
        case skip(action: Int, alive: Int)
        /// The trigger waits for the earlier run to end (`overlap = "queue"`); `waiting` now.
        case enqueue(action: Int, waiting: Int)
        /// The queue already held `queueLimit` triggers: this one is dropped.
        case dropQueued(action: Int)
        /// The run outlived its timeout: send SIGTERM.
        case terminate(RunID)
        /// The run outlived SIGTERM by `killGrace`: send SIGKILL.
        case kill(RunID)
        /// An input that cannot happen (an exit of a run the scheduler does not know): logged
        /// and otherwise ignored.
        case ignored(String)

        public var description: String {
            switch self {
            case .start(let run, let action, let event): "start \(run) of action \(action) for \(event.summary)"
            case .skip(let action, let alive): "skip action \(action): \(alive) earlier run(s) still alive"
            case .enqueue(let action, let waiting): "queue action \(action) (\(waiting) waiting)"
            case .dropQueued(let action): "drop a trigger of action \(action): \(RunScheduler.queueLimit) already waiting"
            case .terminate(let run): "\(run) timed out: SIGTERM"
            case .kill(let run): "\(run) still alive \(RunScheduler.killGrace) after SIGTERM: SIGKILL"
            case .ignored(let why): "ignored: \(why)"
            }
        }
    }

    /// How long a command has after SIGTERM before it gets SIGKILL.
    public static let killGrace: Duration = .seconds(5)
    /// Triggers that may wait behind a running command of a `queue` action; more are dropped
    /// (a burst of taps cannot pile up work without bound).
    public static let queueLimit = 8
    /// Runs of one `parallel` action alive at once; more triggers are skipped (no fork bomb).
    public static let parallelLimit = 16

    /// Where one run is in its life.
    private enum RunState: Sendable, Hashable {
        /// Alive; stopped at `deadline` (nil: no timeout).
        case running(deadline: Duration?)
        /// SIGTERM sent; SIGKILL at `killAt` if it is still alive then.
        case terminating(killAt: Duration)
        /// SIGKILL sent; only its exit is awaited.
        case killed
    }

    private struct Run: Sendable {
        var action: Int
        var state: RunState
    }

    private let actions: [Action]
    private var runs: [RunID: Run] = [:]
    private var waiting: [Int: [ActionEvent]] = [:]
    private var nextRun: UInt64 = 1

    public init(actions: [Action]) {
        self.actions = actions
    }

    /// Runs alive of the action at `index`.
    public func alive(action index: Int) -> Int {
        runs.values.count { $0.action == index }
    }

    /// Triggers waiting behind a run of the action at `index`.
    public func waitingCount(action index: Int) -> Int {
        waiting[index]?.count ?? 0
    }

    /// The earliest moment `advance(to:)` has something to do; nil when nothing is timed.
    public var nextDeadline: Duration? {
        runs.values.compactMap { run -> Duration? in
            switch run.state {
            case .running(let deadline): deadline
            case .terminating(let killAt): killAt
            case .killed: nil
            }
        }.min()
    }

    /// The action at `index` (a `run` action) matched an event at `now`.
    public mutating func triggered(action index: Int, event: ActionEvent, now: Duration) -> [Step] {
        let alive = alive(action: index)
        guard alive > 0 else {
            return [start(action: index, event: event, now: now)]
        }
        switch actions[index].overlap {
        case .skip:
            return [.skip(action: index, alive: alive)]
        case .parallel:
            guard alive < Self.parallelLimit else { return [.skip(action: index, alive: alive)] }
            return [start(action: index, event: event, now: now)]
        case .queue:
            var queue = waiting[index] ?? []
            guard queue.count < Self.queueLimit else { return [.dropQueued(action: index)] }
            queue.append(event)
            waiting[index] = queue
            return [.enqueue(action: index, waiting: queue.count)]
        }
    }

    /// The run ended (or could not be started) at `now`; a trigger waiting behind it starts.
    public mutating func exited(_ id: RunID, now: Duration) -> [Step] {
        guard let run = runs.removeValue(forKey: id) else {
            return [.ignored("exit of \(id), which is not running")]
        }
        guard alive(action: run.action) == 0, var queue = waiting[run.action], !queue.isEmpty else {
            return []
        }
        let event = queue.removeFirst()
        waiting[run.action] = queue.isEmpty ? nil : queue
        return [start(action: run.action, event: event, now: now)]
    }

    /// Time has come to `now`: runs past their timeout are terminated, runs past their grace
    /// are killed (in the order they were started).
    public mutating func advance(to now: Duration) -> [Step] {
        var steps: [Step] = []
        for id in runs.keys.sorted() {
            guard var run = runs[id] else { continue }
            switch run.state {
            case .running(let deadline):
                guard let deadline, deadline <= now else { continue }
                run.state = .terminating(killAt: now + Self.killGrace)
                steps.append(.terminate(id))
            case .terminating(let killAt):
                guard killAt <= now else { continue }
                run.state = .killed
                steps.append(.kill(id))
            case .killed:
                continue
            }
            runs[id] = run
        }
        return steps
    }

    private mutating func start(action index: Int, event: ActionEvent, now: Duration) -> Step {
        let id = RunID(value: nextRun)
        nextRun += 1
        runs[id] = Run(action: index, state: .running(deadline: actions[index].timeout.map { now + $0 }))
        return .start(id, action: index, event: event)
    }
}
