import ArgumentParser
import ConfigFile
import Foundation
import GestureCore

/// Writes one line to standard error, prefixed with the program's name.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("gestured: \(message)\n".utf8))
}

/// Loads the configuration file at `path` (defaults when nil); a bad file is reported as
/// one line naming the file, the line and the problem, and ends the command with status 1.
func loadConfiguration(_ path: String?) throws -> Configuration {
    guard let path else { return Configuration() }
    do {
        return try ConfigLoader.load(path: path)
    } catch {
        printError(error.description)
        throw ExitCode.failure
    }
}
