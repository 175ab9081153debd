import Glibc
import SystemPackage

/// The process's standard output and standard error, written whole and unbuffered, without
/// Foundation (it would cost the daemon megabytes of resident memory, docs/performance.md)
/// and without stdio's buffer (a line must reach a pipe when it is written): every
/// program's one writer of them.
public enum StandardStream: Sendable {
    /// Standard output (descriptor 1).
    case output
    /// Standard error (descriptor 2).
    case error

    /// The stream's descriptor (1 or 2).
    public var descriptor: FileDescriptor {
        switch self {
        case .output: .standardOutput
        case .error: .standardError
        }
    }

    /// Writes every byte, retrying partial writes and `EINTR`; throws the first failure
    /// (`EPIPE` from a reader that went away while SIGPIPE is ignored, `ENOSPC` on `/dev/full`).
    public func write(_ bytes: [UInt8]) throws(SystemError) {
        let name = self == .output ? "standard output" : "standard error"
        try SystemCall.adopting("write", path: name) { _ = try descriptor.writeAll(bytes) }
    }

    /// Writes `text` as UTF-8, as `write(_:)` does.
    public func write(_ text: String) throws(SystemError) {
        try write(Array(text.utf8))
    }

    /// One line (a newline is added) on standard error, best effort: there is nowhere
    /// left to report a failure to write there.
    public static func printError(_ line: String) {
        try? StandardStream.error.write(line + "\n")
    }

    /// The device and inode of the file behind the stream (journald's `JOURNAL_STREAM`
    /// names them), nil when the descriptor is closed.
    public func identity() -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard (try? SystemCall.posixBlocking("fstat") { fstat(descriptor.rawValue, &info) }) != nil else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
