import ArgumentParser

/// `gestured`: touch gestures for Linux kiosks.
@main
struct Gestured: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "Classifies touch input into gestures and serves them over a Unix socket.",
        subcommands: [RunCommand.self, ReplayCommand.self, DevicesCommand.self, CheckConfigCommand.self]
    )
}
