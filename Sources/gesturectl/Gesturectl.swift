import ArgumentParser
import GestureCore
import Foundation
import GestureClient

/// `gesturectl`: a client of the gestured socket.
@main
struct Gesturectl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesturectl",
        abstract: "Subscribes to gestured and prints gestures.",
        version: gesturedVersion,
        subcommands: [Subscribe.self, Status.self, Ping.self]
    )
}

/// `EX_UNAVAILABLE`: the daemon cannot be reached.
let exitUnavailable = ExitCode(69)

struct SocketOption: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket (default: $GESTURED_SOCKET or /run/gestured/gestured.sock).")
    var socket: String?

    func connect() throws -> GestureClient {
        do {
            return try GestureClient.connect(path: socket ?? GestureClient.defaultSocketPath)
        } catch {
            FileHandle.standardError.write(Data("gesturectl: \(error)\n".utf8))
            throw exitUnavailable
        }
    }
}

struct Subscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Prints events as they arrive (one line each).")

    @OptionGroup var connection: SocketOption
    @Option(name: .customLong("gesture"), help: "Only this gesture kind (repeatable).")
    var gestures: [String] = []
    @Option(name: .customLong("region"), help: "Only this region (repeatable).")
    var regions: [String] = []
    @Option(name: .customLong("device"), help: "Only this device (repeatable).")
    var devices: [String] = []
    @Flag(help: "Also raw touch events.")
    var touches = false
    @Flag(help: "Print the server's JSON lines as they are.")
    var json = false

    func run() async throws {
        let client = try connection.connect()
        try client.subscribe(
            gestures: gestures.isEmpty ? nil : gestures,
            regions: regions.isEmpty ? nil : regions,
            devices: devices.isEmpty ? nil : devices,
            touches: touches
        )
        for try await received in client.received {
            if json {
                printLine(received.text)
            } else if let line = describe(received.message) {
                printLine(line)
            }
            if case .goodbye = received.message { break }
        }
    }

}

/// Writes one line to standard output at once (unbuffered), so events show up as they
/// arrive even through a pipe (`gesturectl subscribe | grep tap`).
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// One human-readable line per message; nil for the greeting.
func describe(_ message: ServerMessage) -> String? {
    func point(_ p: Location) -> String { String(format: "(%.3f, %.3f)", p.x, p.y) }
    func seconds(_ micros: UInt64) -> String { String(format: "%.3f", Double(micros) / 1_000_000) }
    switch message {
    case .hello(let hello):
        let names = hello.devices.map(\.name).joined(separator: ", ")
        return "# connected to \(hello.server) \(hello.version), devices: \(names.isEmpty ? "none" : names)"
    case .gesture(let g):
        var line = "\(seconds(g.time)) \(g.device) [\(g.region ?? "-")] \(g.gesture) \(g.phase) #\(g.id) fingers=\(g.fingers) at \(point(g.location))"
        if let local = g.localLocation { line += " local=\(point(local))" }
        if let count = g.count { line += " count=\(count)" }
        if let translation = g.translation { line += " translation=\(point(translation))" }
        if let velocity = g.velocity { line += " velocity=\(point(velocity))" }
        if let direction = g.direction { line += " direction=\(direction)" }
        if let edge = g.edge { line += " edge=\(edge)" }
        if let scale = g.scale { line += String(format: " scale=%.3f", scale) }
        if let rotation = g.rotation { line += String(format: " rotation=%.1f°", rotation) }
        return line
    case .device(let d):
        return "\(seconds(d.time)) device \(d.phase): \(d.device)"
    case .touch(let t):
        return "\(seconds(t.time)) \(t.device) touch \(t.touch) \(t.phase) at \(point(t.location))"
    case .pong(let time):
        return "pong \(time)"
    case .status(let s):
        return "status: \(s.devices.count) devices, \(s.clients)/\(s.maxClients) clients, \(s.counters.events) events, \(s.counters.dropped) dropped"
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
        try client.requestStatus()
        for try await received in client.received {
            guard case .status(let status) = received.message else { continue }
            if json {
                print(received.text)
            } else {
                print("gestured \(status.version), up \(status.uptime) s")
                print("clients: \(status.clients) (limit \(status.maxClients))")
                print("devices: \(status.devices.isEmpty ? "none" : "")")
                for device in status.devices { print("  \(device.name) (\(device.kind)\(device.path.map { ", \($0)" } ?? ""))") }
                let c = status.counters
                print("events: \(c.events), sent: \(c.sent), dropped: \(c.dropped), connections: \(c.connections), refused: \(c.rejected), slow disconnects: \(c.slowDisconnects)")
            }
            return
        }
        throw exitUnavailable
    }
}

struct Ping: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Checks that the daemon answers.")
    @OptionGroup var connection: SocketOption

    func run() async throws {
        let client = try connection.connect()
        try client.ping()
        for try await message in client.messages {
            if case .pong = message {
                print("pong")
                return
            }
        }
        throw exitUnavailable
    }
}
