import ArgumentParser
import ConfigFile
import Daemon
import EvdevInput
import GestureCore
import Glibc
import Logging
import Recordings
import Systemd

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Runs the daemon: reads touch devices and serves gestures on the socket.",
        discussion: """
            Prints nothing on standard output; logs go to the journal when standard error is \
            the journal, else to standard error. Readiness is signalled with sd_notify \
            (READY=1) when NOTIFY_SOCKET is set, and the socket accepts connections from then on. \
            SIGHUP reloads the configuration file (a bad one is logged and the old one stays); \
            SIGTERM/SIGINT stop cleanly (clients get a goodbye, the socket file is removed, exit 0).
            """
    )

    @Option(name: .long, help: ArgumentHelp("Configuration file (TOML); reloaded on SIGHUP.", valueName: "FILE"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Socket path (overrides the configuration, which overrides $GESTURED_SOCKET; default /run/gestured/gestured.sock; ignored under socket activation).",
            valueName: "PATH"))
    var socket: String?

    @Flag(name: .long, help: "Use no input devices (serve the socket only; for tests and demos).")
    var noDevices = false

    @Option(
        name: .long,
        help: ArgumentHelp("Input directory to scan and watch instead of /dev/input (then hot-plug uses inotify).", valueName: "DIR"))
    var inputDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Play this recording in real time as a virtual device instead of reading input devices.", valueName: "RECORDING")
    )
    var replay: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Device description for a recording without one (as for `gestured replay --device`).", valueName: "DESC"))
    var device: String?

    @Option(name: .long, help: "Replay speed factor, 0.01 to 1000 (2: twice as fast).")
    var speed: Double = 1

    @Flag(name: .long, help: "Replay the recording forever.")
    var loop = false

    @Flag(name: .long, help: "Start the replay only once a client has subscribed (for tests and benchmarks).")
    var waitForSubscriber = false

    @Flag(name: .long, help: "Stop the daemon (goodbye to clients, exit 0) once the replay has played (demos, scripts).")
    var exitAfterReplay = false

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (overrides the configuration).")
    var logLevel: String?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        let speeds = ReplayTimeline.speedRange
        guard speeds.contains(speed) else {
            throw ValidationError("--speed must be between \(speeds.lowerBound) and \(Int(speeds.upperBound)) (got \(speed))")
        }
        if replay == nil, loop || waitForSubscriber || exitAfterReplay || device != nil || speed != 1 {
            throw ValidationError("--speed, --loop, --wait-for-subscriber, --exit-after-replay and --device go with --replay")
        }
        if loop && exitAfterReplay {
            throw ValidationError("--exit-after-replay cannot go with --loop: a looping replay never ends")
        }
    }

    /// The daemon runs on the main thread, the process's only thread (signals reach it
    /// through the loop's self-pipe).
    func run() throws {
        let configuration: Configuration
        do {
            configuration = try configurationFromFile()
        } catch {
            liftStoredClones()
            throw error
        }
        let logger = bootstrapLogging(level: logLevel ?? configuration.daemon.logLevel)

        let recordings = try replay.map { path in
            do {
                return try RecordingReader.read(path: path, devicePath: device)
            } catch {
                printError("\(error)")
                throw ExitCode.failure
            }
        }
        let listener: UnixListener
        let storedClones: StoredClones
        do {
            // Stored clones (by their names) apart from listening sockets.
            let passed = Dictionary(grouping: try ServiceManager.listenDescriptors()) { PassThroughClone.isStoreName($0.name) }
            // Taken back (and lifted) before anything else can fail.
            storedClones = StoredClones(passed[true, default: []], logger: logger)
            listener = try makeListener(passed[false, default: []], configuration.daemon, logger: logger)
        } catch {
            logger.critical("cannot listen", metadata: ["error": "\(error)"])
            throw ExitCode(serviceUnavailableExitCode)
        }
        let daemon = try Daemon(configuration: configuration, listener: listener, version: gesturedVersion, logger: logger) {
            // SIGHUP: the same file again; errors are logged by the daemon, which keeps the old configuration.
            try configurationFromFile(reportingErrors: false)
        }
        var playlist: ReplayPlaylist?
        var live: LiveDevices?
        if let recordings {
            let replay = ReplayPlaylist(daemon: daemon, recordings: recordings, speed: speed, loops: loop, logger: logger)
            if exitAfterReplay {
                replay.finished = { [unowned daemon] in daemon.stop(reason: "replay finished") }
            }
            if waitForSubscriber {
                var waiting: Daemon.ObserverToken?
                waiting = daemon.observe { [unowned daemon, unowned replay] change in
                    guard case .clientSubscribed = change, let token = waiting else { return }
                    daemon.stopObserving(token)
                    waiting = nil
                    replay.start()
                }
            } else {
                replay.start()
            }
            playlist = replay
        } else if !noDevices {
            live = LiveDevices(
                daemon: daemon, directory: inputDirectory ?? DeviceDiscovery.inputDirectory, storedClones: storedClones, logger: logger)
            try live?.start()
        }
        if live == nil { storedClones.closeUnclaimed() }
        let code = try withExtendedLifetime((playlist, live)) { try daemon.run() }
        live?.releaseRetiredClones()
        if code != 0 { throw ExitCode(code) }
    }

    /// The configuration file (defaults without `--config`), with `--socket` applied.
    /// The daemon's logger, its level `level` (info when unknown); called once.
    private func bootstrapLogging(level: String) -> Logger {
        let level = Logger.Level(rawValue: level) ?? .info
        LoggingSystem.bootstrap { label in makeLogHandler(label: label, level: level) }
        return Logger(label: "gestured")
    }

    /// A start that fails on its configuration still lifts the touches a dead process left
    /// down on the clones in systemd's descriptor store: with the unit failing, systemd
    /// would close the store and the clones would vanish with their touches still down for
    /// the app. They are destroyed once lifted (and taken out of the store); the next start
    /// that loads its configuration makes new ones.
    private func liftStoredClones() {
        let logger = bootstrapLogging(level: logLevel ?? "info")
        guard let passed = try? ServiceManager.listenDescriptors() else { return }
        StoredClones(passed.filter { PassThroughClone.isStoreName($0.name) }, logger: logger)
            .destroyAll(because: "the configuration cannot be loaded")
    }

    private func configurationFromFile(reportingErrors: Bool = true) throws -> Configuration {
        var configuration: Configuration
        if reportingErrors {
            configuration = try loadConfiguration(config)
        } else {
            configuration = try config.map { try ConfigLoader.load(path: $0) } ?? Configuration()
        }
        if let socket { configuration.daemon.socketPath = socket }
        return configuration
    }

    /// The socket systemd passed (`sockets`), else a new one at the configured path.
    private func makeListener(_ sockets: [PassedDescriptor], _ settings: DaemonSettings, logger: Logger) throws -> UnixListener {
        if let socket = sockets.first {
            guard ServiceManager.isListeningUnixStream(socket.descriptor) else {
                throw ValidationError("the socket passed by systemd (\(socket.name)) is not a listening Unix stream socket")
            }
            logger.info("using the socket passed by systemd", metadata: ["name": "\(socket.name)"])
            return UnixListener(adopting: socket.descriptor)
        }
        var group: gid_t? = nil
        if let name = settings.socketGroup {
            guard let gid = groupID(named: name) else { throw ValidationError("unknown group '\(name)'") }
            group = gid
        }
        let listener = try UnixListener(path: settings.socket, mode: settings.socketMode, group: group)
        logger.info("listening", metadata: ["socket": "\(settings.socket)"])
        return listener
    }
}

/// `EX_UNAVAILABLE` from sysexits.h.
let serviceUnavailableExitCode: Int32 = 69

/// The version reported in `hello` and `status`.
