import Foundation
import GestureProtocol
import GestureTestSupport
import Glibc
import Testing

/// `gesturectl actions` as a process, with its log (standard error) read line by line.
final class ActionsProcess {
    let process = Process()
    private let errorPipe = Pipe.closingOnExec()
    private let outputPipe = Pipe.closingOnExec()
    private let errorReader: LineReader
    private let outputReader: LineReader
    /// Every log line read so far.
    private(set) var log: [String] = []
    /// Commands still alive that the test started (killed at the end).
    private var pids: [pid_t] = []

    /// `output`: where standard output goes instead of a pipe the test reads; `environment`:
    /// variables set (or replaced) in the test's own.
    init(
        config: String, socket: String, extraArguments: [String] = [], output: FileHandle? = nil,
        environment: [String: String] = [:]
    ) throws {
        process.executableURL = URL(fileURLWithPath: try builtExecutable("gesturectl"))
        process.arguments = ["actions", "--config", config, "--socket", socket] + extraArguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = errorPipe
        process.standardOutput = output ?? outputPipe
        errorReader = LineReader(errorPipe)
        outputReader = LineReader(outputPipe)
        try process.run()
    }

    deinit {
        for pid in pids { kill(pid, SIGKILL) }
        if process.isRunning { process.terminate() }
    }

    /// Reads the log until a line contains `text`; that line. Fails after the test's wait
    /// limit without such a line.
    @discardableResult
    func waitForLine(_ text: String) throws -> String {
        while let line = errorReader.readText() {
            log.append(line)
            if line.contains(text) { return line }
        }
        throw TestFailure(description: "no log line with \"\(text)\"; the log:\n\(log.joined(separator: "\n"))")
    }

    /// Reads the log until `count` lines contain `text` (in any order with other lines).
    func waitForLines(_ text: String, count: Int) throws {
        while logLines(containing: text).count < count {
            try waitForLine(text)
        }
    }

    /// The next line of standard output.
    func readOutput() -> String? {
        outputReader.readText()
    }

    /// Waits for a command to start and returns its pid (remembered, killed at the end).
    func waitForStart(of action: String) throws -> pid_t {
        let line = try waitForLine("of \(action) started")
        guard let pid = line.split(separator: " ").last.flatMap({ pid_t($0) }) else {
            throw TestFailure(description: "no pid in \(line)")
        }
        pids.append(pid)
        return pid
    }

    /// Reads the log until `count` runs of `action` have started (in any order with other
    /// lines), remembering their pids.
    func waitForStarts(of action: String, count: Int) throws {
        try waitForLines("of \(action) started", count: count)
        for line in logLines(containing: "of \(action) started") {
            if let pid = line.split(separator: " ").last.flatMap({ pid_t($0) }), !pids.contains(pid) { pids.append(pid) }
        }
    }

    func logLines(containing text: String) -> [String] {
        log.filter { $0.contains(text) }
    }
}

/// The runner end to end: `gestured run --replay demo/demo.events` on a private socket,
/// `gesturectl actions` with commands that write their environment to files. Every wait is
/// for a log line (bounded); no verdict depends on the machine's speed.
@Suite(.serialized) struct ActionsRunnerTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path

    static func replay(socket: String) throws -> DaemonProcess {
        try DaemonProcess(
            extraArguments: ["--replay", demo, "--speed", "20", "--wait-for-subscriber", "--exit-after-replay"],
            socketName: socket)
    }

    /// The demo played on a private socket in `directory`, and `gesturectl actions` with
    /// `actions` (written to `directory/actions.toml`) connected to it.
    static func replayWithActions(
        _ actions: String, in directory: TemporaryDirectory,
        extraArguments: [String] = []
    ) throws -> (DaemonProcess, ActionsProcess) {
        try actions.write(toFile: directory.file("actions.toml"), atomically: true, encoding: .utf8)
        let socket = directory.file("g.sock")
        let daemon = try replay(socket: socket)
        return (daemon, try ActionsProcess(config: directory.file("actions.toml"), socket: socket, extraArguments: extraArguments))
    }

    /// `KEY=value` lines into a dictionary.
    static func environment(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var variables: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            variables[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return variables
    }

    /// The demo's double tap, edge swipe and long press run their commands; each command's
    /// environment carries the gesture's fields and the whole line; exit statuses and the
    /// first stderr lines are logged.
    @Test func theDemosGesturesRunCommandsWithTheGestureInTheirEnvironment() throws {
        let directory = TemporaryDirectory()
        let dump = "env | grep ^GESTURED_ | sort >"
        let actions = """
            [[action]]
            gesture = "tap"
            count = 2
            run = ["sh", "-c", "\(dump) \(directory.file("double-tap.env")); echo first >&2; echo second >&2; exit 3"]

            [[action]]
            gesture = "swipe"
            edge = "right"
            device = "ELAN*"
            run = ["sh", "-c", "\(dump) \(directory.file("swipe.env"))"]

            [[action]]
            gesture = "long-press"
            run = ["sh", "-c", "\(dump) \(directory.file("long-press.env"))"]

            [[action]]
            gesture = "swipe"
            edge = "top"
            run = ["touch", "\(directory.file("never"))"]
            """
        let (daemon, runner) = try Self.replayWithActions(actions, in: directory)
        // Runs of different actions may end in any order.
        try runner.waitForLines("action at line 1 (tap ended) exited with status 3", count: 1)
        try runner.waitForLines("action at line 12 (long-press began) exited with status 0", count: 1)
        try runner.waitForLines("action at line 6 (swipe ended) exited with status 0", count: 1)
        #expect(runner.logLines(containing: "stderr: first").count == 1)
        #expect(runner.logLines(containing: "stderr: second").count == 1)
        #expect(try daemon.waitForExit() == 0)

        let doubleTap = try Self.environment(directory.file("double-tap.env"))
        #expect(doubleTap["GESTURED_GESTURE"] == "tap")
        #expect(doubleTap["GESTURED_PHASE"] == "ended")
        #expect(doubleTap["GESTURED_COUNT"] == "2")
        #expect(doubleTap["GESTURED_FINGERS"] == "1")
        #expect(doubleTap["GESTURED_DEVICE"] == "ELAN Touchscreen")
        #expect(doubleTap["GESTURED_REGION"] == "")
        #expect(doubleTap["GESTURED_DIRECTION"] == "")
        #expect(doubleTap["GESTURED_EDGE"] == "")
        let swipe = try Self.environment(directory.file("swipe.env"))
        #expect(swipe["GESTURED_GESTURE"] == "swipe")
        #expect(swipe["GESTURED_DIRECTION"] == "left")
        #expect(swipe["GESTURED_EDGE"] == "right")
        #expect(swipe["GESTURED_COUNT"] == "")
        let longPress = try Self.environment(directory.file("long-press.env"))
        #expect(longPress["GESTURED_GESTURE"] == "long-press")
        #expect(longPress["GESTURED_PHASE"] == "began")
        for variables in [doubleTap, swipe, longPress] {
            let x = try #require(variables["GESTURED_X"].flatMap(Double.init))
            let y = try #require(variables["GESTURED_Y"].flatMap(Double.init))
            #expect((0...1).contains(x) && (0...1).contains(y))
            let line = try #require(variables["GESTURED_EVENT"])
            let event = try #require(try decodedLine(line).gesture)
            #expect(event.gesture.rawValue == variables["GESTURED_GESTURE"])
            #expect(event.location.x == x)
            #expect(event.location.y == y)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("never")))
    }

    /// The demo has four taps (a tap, a double tap's two, a two-finger tap). A command that
    /// stays alive sees the others skipped, queued (each starting when the one before it
    /// ends, in order), or run beside it.
    @Test(arguments: ["skip", "queue", "parallel"])
    func overlapDecidesWhatATriggerDoesWhileTheCommandRuns(overlap: String) throws {
        let directory = TemporaryDirectory()
        let taps = directory.file("taps")
        let actions = """
            [[action]]
            gesture = "tap"
            overlap = "\(overlap)"
            run = ["sh", "-c", "echo $GESTURED_COUNT $GESTURED_FINGERS >> \(taps); echo written >&2; exec sleep 60"]
            """
        let (daemon, runner) = try Self.replayWithActions(actions, in: directory)
        let action = "action at line 1 (tap ended)"
        // A run has written its line once its stderr says so.
        func waitForRun() throws -> pid_t {
            let pid = try runner.waitForStart(of: action)
            try runner.waitForLine("stderr: written")
            return pid
        }
        let first = try waitForRun()
        switch overlap {
        case "skip":
            // Counted over the whole log: the skips may come before the first run's `written`.
            try runner.waitForLines("\(action) skipped: 1 earlier run(s) still alive", count: 3)
            kill(first, SIGKILL)
            try runner.waitForLine("\(action) killed by signal 9")
            #expect(try String(contentsOfFile: taps, encoding: .utf8) == "1 1\n")
        case "queue":
            try runner.waitForLines("\(action) queued (3 waiting)", count: 1)
            var pid = first
            for _ in 0..<3 {
                kill(pid, SIGKILL)
                pid = try waitForRun()
            }
            kill(pid, SIGKILL)
            #expect(runner.logLines(containing: "of \(action) started").count == 4)
        default:
            // Beside each other: a run may start before the one before it wrote (reading
            // the next start, then the next `written`, would pass over a start line).
            try runner.waitForStarts(of: action, count: 4)
            try runner.waitForLines("stderr: written", count: 4)
            #expect(runner.logLines(containing: "skipped").isEmpty)
            #expect(runner.logLines(containing: "exited").isEmpty)
        }
        _ = try daemon.waitForExit()
        if overlap != "skip" {
            let lines = try String(contentsOfFile: taps, encoding: .utf8).split(separator: "\n")
            // The four taps, in the daemon's order when queued (each run starts when the one
            // before it ends); in parallel the runs race to write.
            #expect(overlap == "queue" ? lines == ["1 1", "1 1", "2 1", "1 2"] : lines.sorted() == ["1 1", "1 1", "1 2", "2 1"])
        }
    }

    /// `timeout`: SIGTERM when it passes; SIGKILL `killGrace` (5 s) later for a command that
    /// ignores SIGTERM (its children too: the signals go to its process group).
    @Test func aCommandPastItsTimeoutIsTerminatedThenKilled() throws {
        let directory = TemporaryDirectory()
        let actions = """
            [[action]]
            gesture = "tap"
            count = 2
            timeout = 0.2
            run = ["sh", "-c", "exec sleep 60"]

            [[action]]
            gesture = "long-press"
            timeout = 0.2
            run = ["sh", "-c", "trap '' TERM; sleep 60"]
            """
        let (daemon, runner) = try Self.replayWithActions(actions, in: directory)
        try runner.waitForLines("action at line 1 (tap ended) timed out: SIGTERM", count: 1)
        try runner.waitForLines("action at line 1 (tap ended) killed by signal 15", count: 1)
        try runner.waitForLines("action at line 7 (long-press began) timed out: SIGTERM", count: 1)
        try runner.waitForLines("action at line 7 (long-press began) still running 5.0 seconds after SIGTERM: SIGKILL", count: 1)
        try runner.waitForLines("action at line 7 (long-press began) killed by signal 9", count: 1)
        _ = try daemon.waitForExit()
    }

    /// Started before the daemon, the runner waits for it; when the daemon goes (and comes
    /// back on the same socket) it connects again and acts on the new daemon's gestures.
    @Test func theRunnerReconnectsWhenTheDaemonRestarts() throws {
        let directory = TemporaryDirectory()
        let taps = directory.file("double-taps")
        try """
        [[action]]
        gesture = "tap"
        count = 2
        run = ["sh", "-c", "echo $GESTURED_COUNT >> \(taps)"]
        """.write(toFile: directory.file("actions.toml"), atomically: true, encoding: .utf8)
        let socket = directory.file("g.sock")
        let runner = try ActionsProcess(config: directory.file("actions.toml"), socket: socket)
        try runner.waitForLine("gestured is not running (no socket at \(socket)); trying again until it answers")
        for round in 1...2 {
            let daemon = try Self.replay(socket: socket)
            try runner.waitForLine("connected to gestured")
            try runner.waitForLine("action at line 1 (tap ended) exited with status 0")
            try runner.waitForLine("the daemon said goodbye (replay finished)")
            #expect(try daemon.waitForExit() == 0)
            #expect(try String(contentsOfFile: taps, encoding: .utf8) == String(repeating: "2\n", count: round))
        }
    }

    /// `--dry-run` whose standard output cannot be written (a full disk) stops with
    /// `EX_IOERR` (74) and says why, instead of reconnecting forever.
    @Test func dryRunWithoutAnOutputEnds() throws {
        let directory = TemporaryDirectory()
        try "[[action]]\ngesture = \"tap\"\nrun = [\"true\"]\n".write(
            toFile: directory.file("actions.toml"), atomically: true, encoding: .utf8)
        let socket = directory.file("g.sock")
        let daemon = try Self.replay(socket: socket)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let runner = try ActionsProcess(
            config: directory.file("actions.toml"), socket: socket, extraArguments: ["--dry-run"], output: full)
        try runner.waitForLine("cannot write to standard output")
        runner.process.waitUntilExit()
        #expect(runner.process.terminationStatus == 74)
        daemon.signal(SIGTERM)
        _ = try daemon.waitForExit()
    }

    /// `--dry-run` prints what would run or be typed, and runs nothing.
    @Test func dryRunPrintsInsteadOfRunning() throws {
        let directory = TemporaryDirectory()
        let actions = """
            [[action]]
            gesture = "swipe"
            run = ["touch", "\(directory.file("swiped"))"]

            [[action]]
            gesture = "tap"
            count = 2
            keys = ["KEY_LEFTCTRL+KEY_R"]
            """
        let (daemon, runner) = try Self.replayWithActions(actions, in: directory, extraArguments: ["--dry-run"])
        #expect(runner.readOutput() == "line 5: keys KEY_LEFTCTRL+KEY_R (wtype -M ctrl -P r -p r -m ctrl)")
        let swipe = try #require(runner.readOutput())
        #expect(
            swipe.hasPrefix(
                "line 1: run touch \(directory.file("swiped")) [GESTURED_GESTURE=swipe GESTURED_PHASE=ended GESTURED_DEVICE=ELAN Touchscreen GESTURED_X="
            ))
        #expect(swipe.hasSuffix("GESTURED_FINGERS=1 GESTURED_DIRECTION=left GESTURED_EDGE=right]"))
        try runner.waitForLine("the daemon said goodbye")
        _ = try daemon.waitForExit()
        #expect(!FileManager.default.fileExists(atPath: directory.file("swiped")))
        #expect(runner.logLines(containing: "virtual keyboard").isEmpty)
    }

    /// A real four-finger drag (Atmel maXTouch, shared corpus), its fingers lifting one
    /// after the other as hands do: the rule on `fingers = 4` fires at its end, the one on
    /// `fingers = 1` does not (the recording has one drag; the first line printed is the
    /// four-finger rule's).
    @Test(.enabled(if: corpusRoot != nil, "needs the shared corpus"))
    func aRuleOnTheFingerCountFiresForAStaggeredFourFingerDrag() throws {
        let directory = TemporaryDirectory()
        let actions = """
            [[action]]
            gesture = "drag"
            fingers = 1
            run = ["true", "one"]

            [[action]]
            gesture = "drag"
            fingers = 4
            run = ["true", "four"]
            """
        try actions.write(toFile: directory.file("actions.toml"), atomically: true, encoding: .utf8)
        let socket = directory.file("g.sock")
        let recording = corpusRoot! + "/evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events"
        let daemon = try DaemonProcess(
            extraArguments: ["--replay", recording, "--speed", "20", "--wait-for-subscriber", "--exit-after-replay"],
            socketName: socket)
        let runner = try ActionsProcess(config: directory.file("actions.toml"), socket: socket, extraArguments: ["--dry-run"])
        let fired = try #require(runner.readOutput())
        #expect(fired.hasPrefix("line 6: run true four [GESTURED_GESTURE=drag GESTURED_PHASE=ended "), "\(fired)")
        #expect(fired.hasSuffix(" GESTURED_FINGERS=4]"), "\(fired)")
        try runner.waitForLine("the daemon said goodbye")
        _ = try daemon.waitForExit()
    }

    /// `--check FILE`: OK with the number of actions, or the file, line and reason with
    /// exit 78 (`EX_CONFIG`); the runner refuses a bad file the same way before connecting.
    @Test func checkNamesTheLineOfABadFile() throws {
        let directory = TemporaryDirectory()
        let good = directory.file("good.toml")
        let bad = directory.file("bad.toml")
        try "[[action]]\ngesture = \"idle\"\nrun = [\"true\"]\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "[[action]]\ngesture = \"tap\"\ncount = 2\nkeys = [\"KEY_LEFTCTRL+KEY_Q\", \"CTRL+R\"]\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        let ok = try runToCompletion("gesturectl", ["actions", "--check", good])
        #expect(ok.status == 0)
        #expect(ok.output == "\(good): OK, 1 action\n")
        let expected =
            "\(bad):4: 'keys' in [[action]] at line 1 'CTRL+R' names no key: 'CTRL' (evdev names such as KEY_A, KEY_ENTER, KEY_LEFTCTRL, KEY_F5)\n"
        let refused = try runToCompletion("gesturectl", ["actions", "--check", bad])
        #expect(refused.status == 78)
        #expect(refused.error == expected)
        let run = try runToCompletion("gesturectl", ["actions", "--config", bad, "--socket", directory.file("none.sock")])
        #expect(run.status == 78)
        #expect(run.error == expected)
    }
}

extension ActionsRunnerTests {
    /// `gesture = "idle"` / `"active"`: a runner that connects while the daemon is idle runs
    /// the idle action at once; the replay's first touch runs the active one; the end of
    /// the replay the idle one again.
    @Test func idleAndActiveActionsRunOnTheDaemonsActivity() throws {
        let directory = TemporaryDirectory()
        let log = directory.file("activity")
        try """
        [[action]]
        gesture = "idle"
        run = ["sh", "-c", "echo $GESTURED_GESTURE >> \(log)"]

        [[action]]
        gesture = "active"
        run = ["sh", "-c", "env | grep ^GESTURED_ | sort > \(directory.file("active.env"))"]
        """.write(toFile: directory.file("actions.toml"), atomically: true, encoding: .utf8)
        let socket = directory.file("g.sock")
        let daemon = try DaemonProcess(
            extraArguments: ["--replay", Self.demo, "--speed", "20", "--wait-for-subscriber"],
            configuration: "[daemon]\nidle-timeout = 0.3\n", socketName: socket)
        _ = try daemon.notify.wait(for: "READY=1")
        let watcher = try LineClient(path: socket)
        _ = try watcher.readMessage(\.activity)  // idle: nothing plays before a subscribe
        let runner = try ActionsProcess(config: directory.file("actions.toml"), socket: socket)
        // The runs of different actions may end in any order.
        try runner.waitForLines("action at line 5 (active) exited with status 0", count: 1)
        try runner.waitForLines("action at line 1 (idle) exited with status 0", count: 2)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "idle\nidle\n")
        let active = try Self.environment(directory.file("active.env"))
        #expect(active["GESTURED_GESTURE"] == "active")
        #expect(active["GESTURED_PHASE"] == "")
        #expect(active["GESTURED_DEVICE"] == "")
        let event = try decodedLine(try #require(active["GESTURED_EVENT"]))
        #expect(event.activity?.phase == .active)
        daemon.signal(SIGTERM)
        _ = try daemon.waitForExit()
    }

    /// With `keyboard = "wayland"` the runner holds a keyboard on the session's seat from its
    /// start (`wtype -` on a pipe only the runner holds), starts it again after it exits
    /// (saying how and after what delay), and takes it along when the runner itself is
    /// killed. A stand-in `wtype` early in `PATH` records each start: the first exits at once
    /// with a message, the next reads its standard input to the end (the real wtype with a
    /// compositor is the kiosk tier's).
    @Test func theWaylandKeyboardIsHeldRestartedAndGoesWithTheRunner() throws {
        let directory = TemporaryDirectory()
        let bin = directory.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let starts = directory.file("starts")
        try """
        #!/bin/sh
        echo "$$ $*" >> \(starts)
        if [ "$(wc -l < \(starts))" -eq 1 ]; then echo "Compositor went away" >&2; exit 3; fi
        cat > /dev/null
        echo "$$ end of input"
        """.write(toFile: bin + "/wtype", atomically: true, encoding: .utf8)
        #expect(chmod(bin + "/wtype", 0o755) == 0)
        let display = directory.file("wayland-test")
        #expect(FileManager.default.createFile(atPath: display, contents: nil))
        try "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_F5\"]\n".write(
            toFile: directory.file("actions.toml"), atomically: true, encoding: .utf8)
        let runner = try ActionsProcess(
            config: directory.file("actions.toml"), socket: directory.file("g.sock"),
            environment: ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), "WAYLAND_DISPLAY": display])
        try runner.waitForLine("the 'keys' actions type through the session's display \(display)")
        let exited = try runner.waitForLine("the session's keyboard (wtype -) exited with status 3: Compositor went away after ")
        #expect(exited.hasSuffix("; starting it again in 0.1 seconds"))
        try runner.waitForLines("holding a keyboard on the session's seat", count: 2)
        let held = runner.logLines(containing: "holding a keyboard on the session's seat")
        let pid = try #require(held.last?.split(separator: " ").last.flatMap { pid_t($0) })
        kill(runner.process.processIdentifier, SIGKILL)
        runner.process.waitUntilExit()
        // The pipe closed with the runner: the holder reads to its end and exits (it writes to
        // the runner's standard output, which the test reads).
        #expect(runner.readOutput() == "\(pid) end of input")
        let text = try String(contentsOfFile: starts, encoding: .utf8)
        #expect(text.split(separator: "\n").filter { $0.hasSuffix(" -") }.count == 2)
    }
}
