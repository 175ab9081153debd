import ArgumentParser

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Not yet implemented.")

    func run() throws {
        throw ValidationError("'run' is not implemented yet")
    }
}
