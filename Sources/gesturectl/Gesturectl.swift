import ArgumentParser
import EvdevInput
import GestureClient
import GestureCore
import Glibc
import SystemCalls

/// `gesturectl`: a client of the gestured socket.
@main
struct Gesturectl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesturectl",
        abstract: "Subscribes to gestured and prints gestures.",
        version: gesturedVersion,
        subcommands: [Subscribe.self, Status.self, Ping.self, ActionsCommand.self]
    )
}

/// `EX_UNAVAILABLE`: the daemon cannot be reached.
let exitUnavailable = ExitCode(69)
/// `EX_IOERR`: standard output cannot be written (a closed pipe, a full disk).
let exitOutputFailed = ExitCode(74)

struct SocketOption: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket (default: $GESTURED_SOCKET or /run/gestured/gestured.sock).")
    var socket: String?

    func connect() throws -> GestureClient {
        do {
            return try GestureClient.connect(path: socket ?? GestureClient.defaultSocketPath)
        } catch {
            printError("\(error)")
            throw exitUnavailable
        }
    }

    /// Sends `request`; when that fails (the daemon refused the connection and closed it),
    /// says why, in the daemon's words when it gave some, and exits 69.
    func send(_ request: ClientRequest, on client: GestureClient) async throws {
        do {
            try client.send(request)
        } catch {
            printError(await refusal(of: client) ?? "\(error)")
            throw exitUnavailable
        }
    }
}

/// Why the daemon refused `client`'s connection, from the `error` line it sent before
/// closing ("gestured at PATH refused the connection: too many clients (limit 64)"); nil
/// when it sent none. Reads what is left of the closed connection.
func refusal(of client: GestureClient) async -> String? {
    do {
        for try await received in client.received {
            if let reason = refusal(received.message, path: client.path) { return reason }
        }
    } catch {
        return "the connection to \(DisplayText.escaped(client.path)) failed: \(error)"
    }
    return nil
}

/// A daemon's `error` line before anything else is its refusal of the connection.
func refusal(_ message: ServerMessage, path: String) -> String? {
    guard case .error(let reason) = message else { return nil }
    return "gestured at \(DisplayText.escaped(path)) refused the connection: \(DisplayText.escaped(reason))"
}

/// The connection ended before the answer: says so, naming the socket, and exits 69.
func connectionEnded(_ client: GestureClient, before what: String) -> ExitCode {
    printError("the connection to \(DisplayText.escaped(client.path)) closed before \(what)")
    return exitUnavailable
}

struct Subscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Prints events as they arrive (one line each).")

    @OptionGroup var connection: SocketOption
    @Option(name: .customLong("gesture"), help: "Only this gesture kind (repeatable).")
    var gestures: [GestureKind] = []
    @Option(name: .customLong("region"), help: "Only this region (repeatable).")
    var regions: [String] = []
    @Option(name: .customLong("device"), help: "Only this device (repeatable).")
    var devices: [String] = []
    @Flag(help: "Also raw touch events.")
    var touches = false
    @Flag(help: "Print the server's JSON lines as they are.")
    var json = false
    @Flag(
        help: ArgumentHelp(
            "Leave out the changed events of every gesture (drags, pinches, rotations, long presses that move): each gesture is its began and ended (or cancelled) line, the latter saying how many changes it had."
        ))
    var compact = false

    func validate() throws {
        if json && compact {
            throw ValidationError("--compact summarises the readable lines; --json prints every wire line as it is")
        }
    }

    func run() async throws {
        let client = try connection.connect()
        try await connection.send(
            .subscribe(
                SubscribeRequest(
                    gestures: gestures.isEmpty ? nil : gestures,
                    regions: regions.isEmpty ? nil : regions,
                    devices: devices.isEmpty ? nil : devices,
                    touches: touches)),
            on: client)
        var greeted = false
        var collapser = ChangeCollapser()
        for try await received in client.received {
            if !greeted, let reason = refusal(received.message, path: client.path) {
                printError(reason)
                throw exitUnavailable
            }
            if case .hello = received.message { greeted = true }
            var changes = 0
            if compact {
                switch collapser.received(received.message) {
                case .leaveOut: continue
                case .show: break
                case .showWithChanges(let count): changes = count
                }
            }
            if json {
                try printLine(received.text)
            } else if let line = describe(received.message) {
                // names come from devices and files
                try printLine(DisplayText.escaped(line) + (changes > 0 ? " (\(changes) changed)" : ""))
            }
            if case .goodbye = received.message { return }
        }
        // Without a goodbye the connection was dropped (or refused): not a success.
        throw connectionEnded(client, before: greeted ? "a goodbye" : "the daemon's hello")
    }

}

/// Writes one line to standard output at once (unbuffered), so events show up as they
/// arrive even through a pipe (`gesturectl subscribe | grep tap`). When the output cannot
/// be written (a reader that went away while SIGPIPE is ignored, `/dev/full`), says so and
/// ends the command with `EX_IOERR` (74).
func printLine(_ line: String) throws {
    do {
        try StandardStream.output.write(line + "\n")
    } catch {
        printError("cannot write to standard output: \(error.reason)")
        throw exitOutputFailed
    }
}

/// One line on standard error, best effort (there is nowhere left to report its failure).
func printError(_ message: String) {
    StandardStream.printError("gesturectl: \(message)")
}

/// `value` with exactly `digits` fraction digits, as `%.<digits>f` prints it (Foundation's
/// `String(format:)` would link 50 MB of ICU into gesturectl).
func fixed(_ value: Double, digits: Int) -> String {
    var scale: UInt64 = 1
    for _ in 0..<digits { scale *= 10 }
    let scaled = (value.magnitude * Double(scale)).rounded()
    guard value.isFinite, scaled < 9.0e18 else { return "\(value)" }
    let units = UInt64(scaled)
    var text = units == 0 || value >= 0 ? "" : "-"
    text += String(units / scale)
    if digits > 0 {
        let fraction = String(units % scale)
        text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    return text
}

/// The gesture kinds as `--gesture` takes them: their wire names.
extension GestureKind: ExpressibleByArgument {}

/// One human-readable line per message; nil for the greeting.
func describe(_ message: ServerMessage) -> String? {
    func point(_ p: Point) -> String { "(\(fixed(p.x, digits: 3)), \(fixed(p.y, digits: 3)))" }
    func seconds(_ time: Timestamp) -> String { fixed(Double(time.microseconds) / 1_000_000, digits: 3) }
    switch message {
    case .hello(let hello):
        let names = hello.devices.map(\.name).joined(separator: ", ")
        return "# connected to \(hello.server) \(hello.version), devices: \(names.isEmpty ? "none" : names)"
    case .gesture(let g):
        var line =
            "\(seconds(g.time)) \(g.device) [\(g.region ?? "-")] \(g.gesture.rawValue) \(g.phase.rawValue) #\(g.id) fingers=\(g.fingers) at \(point(g.location))"
        if let local = g.localLocation { line += " local=\(point(local))" }
        switch g.details {
        case .press, .longPress:
            break
        case .tap(let count):
            line += " count=\(count)"
        case .drag(let drag):
            line += " translation=\(point(drag.translation)) velocity=\(point(drag.velocity))"
            if let edge = drag.edge { line += " edge=\(edge.rawValue)" }
        case .swipe(let direction, let edge, let drag):
            line += " translation=\(point(drag.translation)) velocity=\(point(drag.velocity)) direction=\(direction.rawValue)"
            if let edge { line += " edge=\(edge.rawValue)" }
        case .pinch(let scale, let velocity):
            line += " scale=\(fixed(scale, digits: 3)) velocity=\(fixed(velocity, digits: 3))/s"
        case .rotate(let degrees, let velocity):
            line += " rotation=\(fixed(degrees, digits: 1))° velocity=\(fixed(velocity, digits: 1))°/s"
        }
        return line
    case .device(let d):
        return "\(seconds(d.time)) device \(d.phase.rawValue): \(d.device.name)"
    case .activity(let a):
        return "\(seconds(a.time)) \(a.phase.rawValue)"
    case .touch(let t):
        return "\(seconds(t.time)) \(t.device) touch \(t.touch) \(t.phase.rawValue) at \(point(t.location))"
    case .pong(let time):
        return "pong \(time.microseconds)"
    case .status(let s):
        return
            "status: \(s.devices.count) devices, \(s.clients)/\(s.maxClients) clients, \(s.counters.events) events, \(s.counters.dropped) dropped"
    case .metrics(let m):
        return "metrics: \(m.devices.count) devices, \(m.clients) clients, \(m.latency.count) events delivered"
    case .error(let text):
        return "error: \(text)"
    case .overflow(let dropped):
        return "# \(dropped) events lost (this client read too slowly)"
    case .goodbye(let reason):
        return "# server said goodbye: \(reason)"
    case .unknown(let type):
        return "# unknown message type \(type)"
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Prints the daemon's devices, clients and counters.")
    @OptionGroup var connection: SocketOption
    @Flag(help: "Print the server's status line as it is.") var json = false

    func run() async throws {
        let client = try connection.connect()
        try await connection.send(.status, on: client)
        for try await received in client.received {
            if let reason = refusal(received.message, path: client.path) {
                printError(reason)
                throw exitUnavailable
            }
            guard case .status(let status) = received.message else { continue }
            if json {
                try printLine(received.text)
            } else {
                try printLine("gestured \(status.version), up \(status.uptime) s")
                try printLine("clients: \(status.clients) (limit \(status.maxClients))")
                try printLine("last touch: \(status.lastTouch.map(ago) ?? "none since the daemon started")")
                try printLine("devices: \(status.devices.isEmpty ? "none" : "")")
                for device in status.devices {
                    try printLine("  \(DisplayText.escaped(device.name)) (\(device.kind.rawValue)\(device.path.map { ", \($0)" } ?? ""))")
                    for ghost in status.ghosts where ghost.device == device.name {
                        try printLine("    \(DeviceListing.ghostText(ghost))")
                    }
                }
                let c = status.counters
                try printLine(
                    "events: \(c.events), sent: \(c.sent), dropped: \(c.dropped), connections: \(c.connections), refused: \(c.rejected), slow disconnects: \(c.slowDisconnects)"
                )
            }
            return
        }
        throw connectionEnded(client, before: "the status")
    }

}

/// `12.3 s ago` for a time on the daemon's clock (CLOCK_MONOTONIC, which this machine's
/// processes share).
func ago(_ time: Timestamp) -> String {
    let now = monotonicMicroseconds()
    return "\(fixed(Double(now &- min(now, time.microseconds)) / 1_000_000, digits: 1)) s ago"
}

struct Ping: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Checks that the daemon answers.")
    @OptionGroup var connection: SocketOption

    func run() async throws {
        let client = try connection.connect()
        try await connection.send(.ping, on: client)
        for try await message in client.messages {
            if let reason = refusal(message, path: client.path) {
                printError(reason)
                throw exitUnavailable
            }
            if case .pong = message {
                try printLine("pong")
                return
            }
        }
        throw connectionEnded(client, before: "the pong")
    }
}
