import ArgumentParser

struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config", abstract: "Not yet implemented.")

    func run() throws {
        throw ValidationError("'check-config' is not implemented yet")
    }
}
