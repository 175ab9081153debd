import ArgumentParser
import Daemon
import EvdevInput
import GestureCore
import Systemd

#if canImport(FoundationEssentials)
    import FoundationEssentials  // not Foundation: the daemon's resident memory (docs/performance.md)
#else
    import Foundation
#endif

/// `gestured devices`: every input node, what it is, and whether `gestured run` would use it.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices, their kind, size and slots, and whether gestured would use them."
    )

    @Option(name: .long, help: "Configuration file whose [[device]] entries and use-touchpads apply.")
    var config: String?

    @Flag(name: .long, help: "Print a JSON array instead of text.")
    var json = false

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
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = try encoder.encode(DeviceListing.summaries(reports))
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(DeviceListing.text(reports), terminator: "")
            }
        }
    }
}
