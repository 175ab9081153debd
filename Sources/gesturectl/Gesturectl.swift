import ArgumentParser

/// `gesturectl`: a client of the gestured socket.
@main
struct Gesturectl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesturectl",
        abstract: "Subscribes to gestured and prints gestures."
    )
}
