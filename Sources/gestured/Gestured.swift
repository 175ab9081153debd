import ArgumentParser
import GestureCore

/// `gestured`: touch gestures for Linux kiosks.
///
/// Synchronous on purpose: an async `main` starts libdispatch's worker pool, whose monitor
/// timer wakes the process every second for as long as it lives; the daemon must sleep
/// when there is nothing to do (docs/performance.md, "Daemon (host)").
@main
struct Gestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "Classifies touch input into gestures and serves them over a Unix socket.",
        version: gesturedVersion,
        subcommands: [RunCommand.self, ReplayCommand.self, DevicesCommand.self, CheckConfigCommand.self, GuardCloneCommand.self]
    )
}
