import ArgumentParser

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", abstract: "Not yet implemented.")

    func run() throws {
        throw ValidationError("'replay' is not implemented yet")
    }
}
