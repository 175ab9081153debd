import ArgumentParser
import ConfigFile
import Dispatch
import GestureCore
import GestureProtocol
import Logging
import SystemCalls
import Systemd
import WebBridge

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured-web`: the WebSocket bridge and live touch view (docs/web.md).
@main
struct GesturedWeb: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured-web",
        abstract: "Serve gestured's events to web pages: a WebSocket at /ws and a live touch view at /.",
        discussion: """
            Each browser WebSocket gets its own connection to the daemon's Unix socket and receives \
            every line the daemon sends as one text frame. Started by gestured-web.socket it takes \
            its listening sockets from systemd; otherwise it listens on --listen (default \
            127.0.0.1:7412 and [::1]:7412).
            """,
        version: gesturedVersion
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Address to listen on, HOST:PORT ([::1]:7412 for IPv6); repeatable. Default: 127.0.0.1:7412 and [::1]:7412, unless systemd passes listening sockets.",
            valueName: "HOST:PORT"))
    var listen: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("The daemon's Unix socket (default: $GESTURED_SOCKET, else /run/gestured/gestured.sock).", valueName: "PATH"))
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Configuration file (default \(WebConfigLoader.defaultPath), built-in defaults when it does not exist).", valueName: "PATH"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Directory of the live view's files (default: share/gestured/web beside the binary's bin/, /usr/share/gestured/web for the package; else the web/ of the source checkout the binary was built in).",
            valueName: "DIR"))
    var webRoot: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        for address in listen where ListenAddress(parsing: address) == nil {
            throw ValidationError("--listen takes HOST:PORT (127.0.0.1:7412, [::1]:7412), not '\(address)'")
        }
    }

    func run() throws {
        // SIGTERM and SIGINT are taken before anything is started or announced: a stop that
        // comes at once after READY=1 (systemctl stop, a test) found the signals ignored and
        // no source yet, was lost, and left the bridge running.
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        Subprocess.ignore(signals: [SIGTERM, SIGINT])  // Dispatch's sources take them
        for signalNumber in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in makeLogHandler(label: label, level: level) }
        let logger = Logger(label: "gestured-web")

        let configuration = try loadConfiguration()
        let socket = DaemonSocket.path(explicit: socket, environment: Environment.value)
        let inherited: [Int32]
        do {
            inherited = try ServiceManager.listenDescriptors().map(\.descriptor.rawValue)
        } catch {
            printError("gestured-web: cannot take the listening sockets from systemd: \(error)")
            throw ExitCode.failure
        }
        var addresses = listen.compactMap(ListenAddress.init(parsing:))
        if addresses.isEmpty && inherited.isEmpty {
            addresses = ListenAddress.defaults
        }
        let lookup = webRoot.map { WebRootLookup(root: $0, searched: [$0]) } ?? Self.defaultWebRoot()
        let root = lookup.root ?? lookup.searched[0]
        let routes = Routes(
            policy: OriginPolicy(configuration: configuration), webRoot: root, daemonConfig: configuration.daemonConfig,
            searched: lookup.searched)
        let bridge = Bridge(routes: routes, socketPath: socket, configuration: configuration, logger: logger) { browsers in
            ServiceManager.status("\(browsers) browser(s) connected")
        }
        let listening: [String]
        do {
            listening = try bridge.start(addresses: addresses, descriptors: inherited)
        } catch {
            printError("gestured-web: \(error)")
            bridge.stop(reason: "gestured-web could not start")
            throw ExitCode.failure
        }
        logger.info("listening on \(listening.joined(separator: ", ")); daemon socket \(socket); live view files in \(root)")
        if lookup.root == nil {
            logger.warning("no live view found (looked in \(lookup.searched.joined(separator: "; "))): GET / says so; pass --web-root DIR")
        }
        ServiceManager.ready(status: "listening on \(listening.joined(separator: ", "))")

        stop.wait()
        ServiceManager.stopping()
        logger.info("stopping")
        bridge.stop(reason: "gestured-web is stopping")
    }

    /// The `--config` file (which must exist), else the default one if it exists, else the
    /// built-in defaults.
    private func loadConfiguration() throws -> WebConfiguration {
        let path = config ?? WebConfigLoader.defaultPath
        if config == nil, !RegularFile.anythingExists(path: path) {
            return WebConfiguration()
        }
        do {
            return try WebConfigLoader.load(path: path)
        } catch {
            printError("gestured-web: \(error)")
            throw ExitCode.failure
        }
    }

    /// Where the live view is for the running binary (`WebRootLookup`: installed beside its
    /// `bin/`, else the source checkout it was built in).
    private static func defaultWebRoot() -> WebRootLookup {
        guard let executable = Subprocess.currentExecutable() else {
            return WebRootLookup(root: "/usr/share/gestured/web", searched: ["/usr/share/gestured/web"])
        }
        return WebRootLookup.locate(executable: executable)
    }
}

private func printError(_ message: String) {
    StandardStream.printError(message)
}
