import Actions
import ArgumentParser
import ConfigFile
import EvdevInput
import GestureClient
import GestureCore
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// `gesturectl actions`: runs commands and types keys on the gestures an actions file
/// names (docs/actions.md), reconnecting whenever the daemon goes away.
struct ActionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Runs commands or types keys on gestures, as an actions file says.",
        discussion: "Default file: ~/.config/gestured/actions.toml. Commands get the gesture in GESTURED_* variables."
    )

    @OptionGroup var connection: SocketOption
    @Option(name: .long, help: "The actions file (default: ~/.config/gestured/actions.toml).")
    var config: String?
    @Option(name: .long, help: "Only check this actions file: print what is wrong with its line, or OK.")
    var check: String?
    @Flag(name: .long, help: "Print what would run or be typed instead of doing it.")
    var dryRun = false

    /// `EX_CONFIG`: the actions file is missing or wrong.
    static let exitBadFile = ExitCode(78)

    func run() async throws {
        if let check {
            let file = try Self.load(path: check)
            try printLine("\(DisplayText.escaped(check)): OK, \(file.actions.count) action\(file.actions.count == 1 ? "" : "s")")
            return
        }
        let file = try Self.load(path: config ?? Self.defaultPath)
        Subprocess.ignore(signals: [SIGPIPE])
        if file.actions.isEmpty {
            printError("actions: \(DisplayText.escaped(file.path)) has no [[action]]: nothing will happen")
        }
        let performer = try ActionPerformer(file: file, dryRun: dryRun)
        try await ActionConnection(socketPath: connection.socket ?? GestureClient.defaultSocketPath, file: file, performer: performer).run()
    }

    static var defaultPath: String {
        ActionsFileLoader.defaultPath(home: Environment.value("HOME") ?? "")
    }

    /// The file, or its problem on standard error and exit 78.
    static func load(path: String) throws -> ActionsFile {
        do {
            return try ActionsFileLoader.load(path: path, keyCode: KeyNames.code)
        } catch {
            StandardStream.printError("\(error)")
            throw exitBadFile
        }
    }
}

/// Carries out the actions an event matches: commands through the supervisor, chords
/// through the session's typing program (wtype, xdotool: also supervised commands) or on
/// the uinput keyboard, or (dry run) a line on standard output for each.
final class ActionPerformer {
    private let file: ActionsFile
    private let matcher: ActionMatcher
    private let dryRun: Bool
    private let supervisor: CommandSupervisor?
    /// How `keys` are typed now; nil when they cannot be (said at start).
    private let typist: Typist?

    /// Where the chords of `keys` actions go.
    private enum Typist {
        /// The session's typing program runs (the actions' `run` after
        /// `SessionTypist.runnable`).
        case session
        case uinput(VirtualKeyboard)
    }

    init(file: ActionsFile, dryRun: Bool) throws {
        self.file = file
        self.dryRun = dryRun
        matcher = ActionMatcher(file.actions)
        if dryRun {
            supervisor = nil
            typist = nil
            return
        }
        let supervisor = try CommandSupervisor(actions: file.actions.map { SessionTypist.runnable($0, on: file.keyboard) })
        supervisor.start()
        self.supervisor = supervisor
        typist = file.typesKeys ? Self.makeTypist(file) : nil
        if case .session = typist, let holder = SessionTypist.keyboardHolder(for: file.keyboard) {
            SessionKeyboardHolder(argv: holder).start()
        }
    }

    /// How the file's `keys` will be typed, or nil with a message saying why they cannot be
    /// and what fixes it (the `run` actions work either way).
    private static func makeTypist(_ file: ActionsFile) -> Typist? {
        let lines = file.actions.filter { if case .keys = $0.effect { true } else { false } }.map { "\($0.line)" }
        let consequence = "The 'keys' actions (line \(lines.joined(separator: ", "))) will do nothing; the 'run' actions work."
        switch file.keyboard {
        case .wayland, .x11:
            switch sessionDisplay(file.keyboard) {
            case .success(let display):
                if let program = SessionTypist.program(for: file.keyboard), let problem = missing(program) {
                    printError("actions: \(problem). \(consequence)")
                    return nil
                }
                printError(
                    "actions: the 'keys' actions type through the session's display \(display) (keyboard = \"\(file.keyboard.rawValue)\")")
                return .session
            case .failure(let problem):
                printError(
                    "actions: no display for the 'keys' actions (keyboard = \"\(file.keyboard.rawValue)\"): \(problem). \(consequence) "
                        + "Run gesturectl actions inside the kiosk's graphical session, with its WAYLAND_DISPLAY and XDG_RUNTIME_DIR "
                        + "(or DISPLAY for x11) (docs/kiosk.md).")
                return nil
            }
        case .uinput:
            do {
                let keyboard = try VirtualKeyboard(extraKeys: file.keyCodes)
                printError("actions: virtual keyboard \(keyboard.devnode) ready for the 'keys' actions")
                return .uinput(keyboard)
            } catch {
                var message =
                    "actions: cannot create the virtual keyboard: \(error.path ?? "/dev/uinput"): \(error.reason). \(consequence) "
                switch error.errno {
                case .noSuchFileOrDirectory, .operationNotSupportedByDevice:
                    message += "This kernel has no uinput: load it with `modprobe uinput` (or add uinput to /etc/modules-load.d/)."
                default:
                    message += "Fix: \(uinputRemedy)"
                }
                printError(message)
                return nil
            }
        }
    }

    /// The display `keyboard`'s program will type on (the Wayland socket; X11's `DISPLAY`),
    /// or why there is none, naming the variables.
    private static func sessionDisplay(_ keyboard: KeyboardBackend) -> Result<String, WaylandSession.Problem> {
        switch keyboard {
        case .x11:
            guard let display = Environment.value("DISPLAY"), !display.isEmpty else {
                return .failure(WaylandSession.Problem("DISPLAY is not set"))
            }
            return .success(display)
        case .wayland, .uinput:
            return WaylandSession.socket(
                waylandDisplay: Environment.value("WAYLAND_DISPLAY"), runtimeDirectory: Environment.value("XDG_RUNTIME_DIR"),
                exists: { RegularFile.anythingExists(path: $0) })
        }
    }

    /// Why `program` cannot be run (not in `PATH`), or nil.
    private static func missing(_ program: String) -> String? {
        let path = Environment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        let found = path.split(separator: ":").contains { directory in
            RegularFile.isAccessible(path: "\(directory)/\(program)", mode: X_OK)
        }
        return found ? nil : "\(program) is not in PATH (\(path)): install it (Debian: apt install \(program))"
    }

    /// What `keyboard = "uinput"` needs (docs/actions.md): a udev rule of the operator's own.
    static let uinputRemedy =
        "keyboard = \"uinput\" needs write access to /dev/uinput, which the gestured package does not give: "
        + "an operator who accepts that any process of this user can then inject input into every session and virtual terminal "
        + "adds a rule such as KERNEL==\"uinput\", SUBSYSTEM==\"misc\", TAG+=\"uaccess\" in /etc/udev/rules.d/70-uinput-session.rules "
        + "and runs `udevadm trigger /dev/uinput` (docs/actions.md); keyboard = \"wayland\" (the default) needs none."

    /// Does what `event` asks for.
    func perform(_ event: ActionEvent) throws {
        for index in matcher.matches(event) {
            let action = file.actions[index]
            switch action.effect {
            case .run(let argv):
                if dryRun {
                    let variables = event.environment.filter { $0.name != "GESTURED_EVENT" && !$0.value.isEmpty }
                        .map { "\($0.name)=\($0.value)" }.joined(separator: " ")
                    try printLine(DisplayText.escaped("line \(action.line): run \(argv.joined(separator: " ")) [\(variables)]"))
                } else {
                    supervisor?.trigger(action: index, event: event)
                }
            case .keys(let chords):
                if dryRun {
                    let how = SessionTypist.arguments(typing: chords, on: file.keyboard)?.joined(separator: " ") ?? "uinput keyboard"
                    try printLine("line \(action.line): keys \(chords.map(\.description).joined(separator: " ")) (\(how))")
                } else {
                    switch typist {
                    case .session:
                        supervisor?.trigger(action: index, event: event)
                    case .uinput(let keyboard):
                        do {
                            for chord in chords { try keyboard.type(chord.events) }
                            printError("actions: \(action.label) typed \(chords.map(\.description).joined(separator: " "))")
                        } catch {
                            printError("actions: \(action.label): cannot type on the virtual keyboard: \(error)")
                        }
                    case nil:
                        printError("actions: \(action.label) not typed: no keyboard (see the message at start)")
                    }
                }
            }
        }
    }
}

/// The connection to the daemon, made again with backoff whenever it is lost (the daemon
/// restarting, not started yet, a line it cannot decode).
struct ActionConnection {
    let socketPath: String
    let file: ActionsFile
    let performer: ActionPerformer

    func run() async throws {
        var backoff = ReconnectBackoff()
        var reportedDown = false
        while true {
            let client: GestureClient
            do {
                client = try GestureClient.connect(path: socketPath)
            } catch {
                if !reportedDown {
                    printError("actions: \(error); trying again until it answers")
                    reportedDown = true
                }
                try await Task.sleep(for: backoff.failed())
                continue
            }
            do {
                try client.subscribe(gestures: file.subscribedGestures)
            } catch {
                // Refused (too many clients, not allowed): the daemon said why and closed.
                if !reportedDown {
                    printError("actions: \(await refusal(of: client) ?? "\(error)"); trying again until it answers")
                    reportedDown = true
                }
                try await Task.sleep(for: backoff.failed())
                continue
            }
            // Throws only when standard output is gone (--dry-run): that ends the command.
            if try await serve(client, backoff: &backoff, reportedDown: &reportedDown) {
                printError("actions: connection to \(DisplayText.escaped(socketPath)) closed")
            }
            try await Task.sleep(for: backoff.failed())
        }
    }

    /// Acts on every message of one connection until it ends; a line the client cannot
    /// decode ends it with an error (the caller connects again). False when the daemon
    /// refused the connection (said once, until a connection succeeds).
    private func serve(_ client: GestureClient, backoff: inout ReconnectBackoff, reportedDown: inout Bool) async throws -> Bool {
        var greeted = false
        do {
            for try await received in client.received {
                if !greeted, let reason = refusal(received.message, path: socketPath) {
                    if !reportedDown {
                        printError("actions: \(reason); trying again until it answers")
                        reportedDown = true
                    }
                    return false
                }
                switch received.message {
                case .hello(let hello):
                    greeted = true
                    backoff.connected()
                    reportedDown = false
                    printError(
                        "actions: connected to \(hello.server) \(hello.version) at \(DisplayText.escaped(socketPath)); \(file.actions.count) action(s)"
                    )
                case .goodbye(let reason):
                    printError("actions: the daemon said goodbye (\(DisplayText.escaped(reason)))")
                case .gesture, .activity, .touch, .device, .pong, .status, .metrics, .error, .overflow, .unknown:
                    if let event = ActionEvent(received.message, line: received.text) {
                        try performer.perform(event)
                    }
                }
            }
        } catch let exit as ExitCode {
            throw exit  // standard output is gone (--dry-run): nothing left to do
        } catch {
            printError("actions: connection to \(DisplayText.escaped(socketPath)) lost: \(error)")
        }
        return true
    }
}

extension ActionEvent {
    /// The event an action can match in a message from the daemon; nil for messages no
    /// action matches (hello, device lines, replies).
    init?(_ message: ServerMessage, line: String) {
        switch message {
        case .gesture(let gesture):
            self.init(
                trigger: .gesture(gesture.gesture), phase: gesture.phase, region: gesture.region, device: gesture.device,
                location: gesture.location, fingers: gesture.fingers, count: gesture.count, direction: gesture.direction,
                edge: gesture.edge, line: line)
        case .activity(let activity):
            switch activity.phase {
            case .idle: self.init(trigger: .idle, line: line)
            case .active: self.init(trigger: .active, line: line)
            }
        case .hello, .device, .touch, .pong, .status, .metrics, .error, .overflow, .goodbye, .unknown:
            return nil
        }
    }
}
