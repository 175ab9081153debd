import ArgumentParser
import Daemon

/// `gestured guard-clone`: the guard of one pass-through clone, started by the daemon itself
/// (`CloneGuard`), never by hand. Hidden from `--help`.
struct GuardCloneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guard-clone",
        abstract: "Lift a pass-through clone's touches if the daemon ends without doing it (started by gestured run).",
        shouldDisplay: false
    )

    @Option(name: .long, help: "The clone's node, for the message.")
    var clone: String

    @Option(name: .long, help: "The frame that lifts every touch, as the daemon wrote it.")
    var release: String

    func run() throws {
        switch CloneGuard.runAsGuard(release: release) {
        case nil:
            printError("guard-clone: --release is not a frame the daemon wrote: \(release)")
            throw ExitCode(2)
        case true?:
            printError("guard-clone: the daemon ended without lifting its touches; lifted every touch on the pass-through clone \(clone)")
        case false?:
            break
        }
    }
}
