import ArgumentParser

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "Not yet implemented.")

    func run() throws {
        throw ValidationError("'devices' is not implemented yet")
    }
}
