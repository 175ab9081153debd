import ArgumentParser
import GestureCore
import Recordings
import SystemCalls

/// `gestured replay`: classifies recordings in virtual time and prints the wire lines a
/// subscriber would receive.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Classify recorded touch input and print the gesture events as the socket would carry them.",
        discussion: """
            Reads evemu recordings (with their own device header, a sibling NAME.desc / .prop, \
            or --device), `libinput record` YAML, evtest text output and Android `getevent -lt` \
            text. Runs the gesture engine in virtual time, as fast as the machine allows, and \
            prints one JSON line per event (docs/protocol.md). Exits 1 with one line per bad \
            file naming the file, the line and the problem.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Configuration file (regions, thresholds, per-device geometry).", valueName: "FILE"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Device description (evemu .desc/.prop or evtest header) for recordings without one.", valueName: "DESC"))
    var device: String?

    @Flag(name: .long, help: "Log every recognizer state transition to standard error.")
    var trace = false

    @Argument(help: ArgumentHelp("Recording files.", valueName: "RECORDING"))
    var recordings: [String]

    func run() throws {
        let configuration = try loadConfiguration(config)
        var replayer = Replayer(configuration: configuration)
        if trace {
            replayer.transitionLog = { printError($0) }
        }
        var failures = 0
        for path in recordings {
            let parsed: [Recording]
            do {
                parsed = try RecordingReader.read(path: path, devicePath: device)
            } catch {
                printError("\(error)")
                failures += 1
                continue
            }
            for recording in parsed {
                replayer.replay(recording) { bytes in
                    try? StandardStream.output.write(bytes)  // a reader that went away: nothing to report it to
                }
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }
}
