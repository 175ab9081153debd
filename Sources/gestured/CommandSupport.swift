import ArgumentParser
import ConfigFile
import GestureCore
import SystemPackage

/// Writes one line to standard error, prefixed with the program's name.
func printError(_ message: String) {
    writeAll(.standardError, Array("gestured: \(message)\n".utf8))
}

/// Writes every byte to `fd` (unbuffered; swift-system retries partial writes and EINTR).
/// No Foundation in the `gestured` binary: it would cost the daemon megabytes of resident
/// memory (docs/performance.md). A failed write has no one left to tell: it is dropped.
func writeAll(_ fd: FileDescriptor, _ bytes: [UInt8]) {
    _ = try? fd.writeAll(bytes)
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
