import ArgumentParser
import ConfigFile
import GestureCore
import GestureProtocol
import SystemCalls

/// Writes one line to standard error, prefixed with the program's name.
func printError(_ message: String) {
    StandardStream.printError("gestured: \(message)")
}

extension DaemonSettings {
    /// The socket the daemon listens on: `socket` when `--socket` or the file set it, else
    /// `$GESTURED_SOCKET`, else `/run/gestured/gestured.sock` (`DaemonSocket`'s rule).
    var socket: String {
        DaemonSocket.path(explicit: socketPath, environment: Environment.value)
    }
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
