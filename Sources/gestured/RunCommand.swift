import ArgumentParser
import Daemon
import GestureCore
import Logging
#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Runs the daemon: reads touch devices and serves gestures on the socket."
    )

    @Option(name: .long, help: "Configuration file (TOML).")
    var config: String?

    @Option(name: .long, help: "Socket path (overrides the configuration; ignored under socket activation).")
    var socket: String?

    @Flag(name: .long, help: "Use no input devices (serve the socket only; for tests and demos).")
    var noDevices = false

    @Option(name: .long, help: "Play this recording in real time as a virtual device.")
    var replay: String?

    @Option(name: .long, help: "Replay speed factor.")
    var speed: Double = 1

    @Flag(name: .long, help: "Replay the recording forever.")
    var loop = false

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (overrides the configuration).")
    var logLevel: String?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number") }
    }

    /// The daemon runs on the main thread: signals are delivered through a signalfd, which
    /// works only when every thread blocks them, and the main thread is the one the async
    /// runtime leaves unblocked.
    func run() async throws {
        try await MainActor.run { try runDaemon() }
    }

    @MainActor
    private func runDaemon() throws {
        var configuration = try loadConfiguration()
        if let socket { configuration.daemon.socketPath = socket }
        let level = Logger.Level(rawValue: logLevel ?? configuration.daemon.logLevel) ?? .info
        LoggingSystem.bootstrap { label in makeLogHandler(label: label, level: level) }
        let logger = Logger(label: "gestured")

        let listener: UnixListener
        do {
            listener = try makeListener(configuration.daemon, logger: logger)
        } catch {
            logger.critical("cannot listen", metadata: ["error": "\(error)"])
            throw ExitCode(EX_UNAVAILABLE_CODE)
        }
        let overrideSocket = socket
        let daemon = try Daemon(configuration: configuration, listener: listener, version: gesturedVersion, logger: logger) {
            var reloaded = try loadConfiguration()
            if let overrideSocket { reloaded.daemon.socketPath = overrideSocket }
            return reloaded
        }
        if replay != nil {
            // TODO(coordinator): Recordings reader + ContactTracker/GestureEngine behind
            // `TouchPipeline`, then `daemon.add(ReplaySource(...))`.
            throw ValidationError("--replay is not wired yet")
        }
        if !noDevices {
            // TODO(coordinator): EvdevInput discovery + hot-plug → `daemon.add(source)`.
            logger.notice("device discovery is not wired yet; serving without devices")
        }
        let code = try daemon.run()
        if code != 0 { throw ExitCode(code) }
    }

    /// STAND-IN until the TOML loader lands: the file must exist and be readable; its
    /// contents are not parsed yet (defaults apply).
    private func loadConfiguration() throws -> Configuration {
        guard let config else { return Configuration() }
        guard let file = fopen(config, "r") else {
            throw ValidationError("cannot read configuration \(config): \(String(cString: strerror(errno)))")
        }
        var byte: UInt8 = 0
        let readable = fread(&byte, 1, 1, file) >= 0 && ferror(file) == 0
        fclose(file)
        guard readable else {
            throw ValidationError("cannot read configuration \(config)")
        }
        return Configuration()
    }

    /// The socket systemd passed, else a new one at the configured path.
    private func makeListener(_ settings: DaemonSettings, logger: Logger) throws -> UnixListener {
        let passed = try ServiceManager.listenDescriptors()
        if let fd = passed.first {
            guard ServiceManager.isListeningUnixStream(fd) else {
                throw ValidationError("the socket passed by systemd is not a listening Unix stream socket")
            }
            logger.info("using the socket passed by systemd")
            return UnixListener(adopting: fd)
        }
        var group: gid_t? = nil
        if let name = settings.socketGroup {
            guard let gid = groupID(named: name) else { throw ValidationError("unknown group '\(name)'") }
            group = gid
        }
        let listener = try UnixListener(path: settings.socketPath, mode: settings.socketMode, group: group)
        logger.info("listening", metadata: ["socket": "\(settings.socketPath)"])
        return listener
    }
}

/// `EX_UNAVAILABLE` from sysexits.h.
let EX_UNAVAILABLE_CODE: Int32 = 69

/// The version reported in `hello` and `status`.
let gesturedVersion = "0.1.0"
