#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a file could not be read, in words for the operator ("no such file", "is a FIFO
/// (named pipe), not a recording", "is 2 MiB; the limit is 1 MiB").
public struct FileReadError: Error, Sendable, Hashable {
    public var message: String
}

/// Reads whole regular files, refusing what is not one before touching its contents: a
/// FIFO (which would block), a device, a directory, a socket, or a file larger than the
/// caller's limit (checked from `fstat` before reading, and again while reading, since a
/// file can grow in between). Symlinks are followed (an operator may link
/// `/etc/gestured/gestured.toml`); a symlink loop is reported as one.
public enum RegularFile {
    /// The bytes of the file at `path`, at most `limit` of them. `kind` names what the file
    /// should be in messages ("file", "recording").
    public static func read(path: String, limit: Int, kind: String = "file") throws(FileReadError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(message: describe(errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileReadError(message: describe(errno: errno)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw FileReadError(message: "is a directory, not a \(kind)")
        case S_IFIFO: throw FileReadError(message: "is a FIFO (named pipe), not a \(kind)")
        case S_IFSOCK: throw FileReadError(message: "is a socket, not a \(kind)")
        case S_IFCHR, S_IFBLK: throw FileReadError(message: "is a device, not a \(kind)")
        default: throw FileReadError(message: "is not a regular file")
        }
        if info.st_size > limit {
            throw FileReadError(message: tooLarge(Int(info.st_size), limit: limit))
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { throw FileReadError(message: tooLarge(count, limit: limit)) }
                bytes.append(contentsOf: repeatElement(0, count: min(max(count, 4096), limit + 1 - count)))
            }
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileReadError(message: describe(errno: errno))
            }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw FileReadError(message: tooLarge(count, limit: limit)) }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// "1 MiB", "300 KiB", "512 bytes".
    public static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    private static func tooLarge(_ count: Int, limit: Int) -> String {
        "is larger than the limit of \(size(limit)) (\(count) bytes or more)"
    }

    private static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case ELOOP: "too many levels of symbolic links (a symlink loop?)"
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "a component of the path is not a directory"
        case ENAMETOOLONG: "the path is too long"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
