import ArgumentParser
import ConfigFile
import GestureCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes one line to standard error, prefixed with the program's name.
func printError(_ message: String) {
    writeAll(STDERR_FILENO, Array("gestured: \(message)\n".utf8))
}

/// Writes every byte to `fd` (unbuffered; retried after partial writes and EINTR). No
/// Foundation in the `gestured` binary: it would cost the daemon megabytes of resident
/// memory (docs/performance.md).
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
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
