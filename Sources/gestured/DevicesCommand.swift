import ArgumentParser
import Daemon
import EvdevInput
import GestureClient
import GestureCore
import Systemd

#if canImport(FoundationEssentials)
    import FoundationEssentials  // not Foundation: the daemon's resident memory (docs/performance.md)
#else
    import Foundation
#endif

/// `gestured devices`: every input node, what it is, and whether `gestured run` would use it;
/// and, from the running daemon (its socket, when it answers), the ghost series it learned on
/// each device it reads.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices, their kind, size and slots, and whether gestured would use them."
    )

    @Option(name: .long, help: "Configuration file whose [[device]] entries and use-touchpads apply.")
    var config: String?

    @Flag(name: .long, help: "Print a JSON array instead of text.")
    var json = false

    /// How long the running daemon may take to answer `status`: it answers between two
    /// input events, so at once unless it is stopped or hung.
    static let statusTimeoutMilliseconds: Int32 = 2000

    func run() throws {
        let configuration = try loadConfiguration(config)
        switch try DeviceDiscovery.scan() {
        case .noInputDirectory(let directory):
            if json {
                print("[]")
                printError(DeviceListing.noInputDirectoryLine(directory))
            } else {
                print(DeviceListing.noInputDirectoryLine(directory))
            }
        case .nodes(let nodes):
            let reports = nodes.map { node in
                let udev = UdevDatabase.properties(devnode: node.path)
                let system = SystemCalibration.lookup(in: udev)
                var rejected: String?
                if case .invalid(let value, let problem) = system { rejected = "\"\(value)\" (\(problem))" }
                return DeviceReport.probe(
                    node, configuration: configuration, systemCalibration: system.matrix, rejectedSystemCalibration: rejected,
                    udevProperties: udev)
            }
            let ghosts: [GhostSeries]?
            var unknown: String?
            switch StatusQuery.ask(path: configuration.daemon.socket, timeoutMilliseconds: Self.statusTimeoutMilliseconds) {
            case .success(let status): ghosts = status.ghosts
            case .failure(let error):
                ghosts = nil
                unknown = DeviceListing.ghostsUnknownLine(error.description)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = try encoder.encode(DeviceListing.summaries(reports, ghosts: ghosts))
                print(String(decoding: data, as: UTF8.self))
                if let unknown { printError(unknown) }
            } else {
                print(DeviceListing.text(reports, ghosts: ghosts), terminator: "")
                if let unknown { print(unknown) }
            }
        }
    }
}
