import Glibc
import SystemPackage

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
    /// Whether `path` names a regular file (symlinks followed); false for anything else and
    /// when it cannot be examined.
    public static func exists(path: String) -> Bool {
        var info = Glibc.stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Whether anything at all is at `path` (`access(F_OK)`, symlinks followed): for "use
    /// the default file when there is one", where a directory in its place must still be
    /// reported by the reader rather than silently skipped as `exists(path:)` would.
    public static func anythingExists(path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Whether `access(2)` grants `mode` (`F_OK`, or `R_OK`, `W_OK`, `X_OK` or'd) on `path`
    /// to this process's real user: "is udevd's control socket there", "can it be run".
    public static func isAccessible(path: String, mode: Int32) -> Bool {
        access(path, mode) == 0
    }

    /// Removes the file (`unlink`) or, with `isDirectory`, the empty directory (`rmdir`) at
    /// `path`; false when it could not (nothing there is the usual reason, and for clean-ups
    /// the expected outcome).
    @discardableResult
    public static func remove(path: String, isDirectory: Bool = false) -> Bool {
        (isDirectory ? rmdir(path) : unlink(path)) == 0
    }

    /// Creates the directory `path` with `mode`; one already there is left as it is.
    public static func makeDirectory(path: String, mode: mode_t) throws(SystemError) {
        do {
            try SystemCall.posixBlocking("mkdir", path: path) { mkdir(path, mode) }
        } catch  where error.errno == .fileExists {}
    }

    /// Removes the entry `name` of `directory` (`unlinkat`, `AT_REMOVEDIR` for an empty
    /// directory), for clean-ups where nothing there (any more) is the expected outcome.
    public static func remove(_ name: String, in directory: FileDescriptor, isDirectory: Bool = false) {
        _ = try? SystemCall.posixBlocking("unlinkat", path: name) {
            unlinkat(directory.rawValue, name, isDirectory ? AT_REMOVEDIR : 0)
        }
    }

    /// The bytes of the file at `path`, at most `limit` of them. `kind` names what the file
    /// should be in messages ("file", "recording").
    public static func read(path: String, limit: Int, kind: String = "file") throws(FileReadError) -> [UInt8] {
        // nonBlocking: opening a FIFO must not wait for a writer; it is refused below.
        // O_NOCTTY: a terminal opened by mistake must not become the daemon's.
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                path, .readOnly, options: [.nonBlocking, .closeOnExec, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)])
        } catch {
            throw FileReadError(message: describe(error as? Errno ?? .ioError))
        }
        defer { try? fd.close() }
        let info: Stat
        do {
            info = try fd.stat()
        } catch {
            throw FileReadError(message: describe(error))
        }
        switch info.type {
        case .regular: break
        case .directory: throw FileReadError(message: "is a directory, not a \(kind)")
        case .fifo: throw FileReadError(message: "is a FIFO (named pipe), not a \(kind)")
        case .socket: throw FileReadError(message: "is a socket, not a \(kind)")
        case .characterSpecial, .blockSpecial: throw FileReadError(message: "is a device, not a \(kind)")
        default: throw FileReadError(message: "is not a regular file")
        }
        if info.size > limit {
            throw FileReadError(message: tooLarge(Int(info.size), limit: limit))
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { throw FileReadError(message: tooLarge(count, limit: limit)) }
                bytes.append(contentsOf: repeatElement(0, count: min(max(count, 4096), limit + 1 - count)))
            }
            let got: Int
            do {
                got = try bytes.withUnsafeMutableBytes { try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
            } catch {
                throw FileReadError(message: describe(error as? Errno ?? .ioError))
            }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw FileReadError(message: tooLarge(count, limit: limit)) }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// What tells one version of a file from the next without reading it (device, inode,
    /// size, modification and change times, from `stat`): a cache of what was parsed from
    /// the file is kept while this stays the same. Nil when the file cannot be statted.
    public static func identity(path: String) -> FileIdentity? {
        guard let info = try? FilePath(path).stat() else { return nil }
        let raw = info.rawValue
        return FileIdentity(
            device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino), size: Int64(raw.st_size),
            modified: Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec),
            changed: Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec))
    }

    /// The device number (`st_rdev`) of the character device at `path` (symlinks followed):
    /// what udev knows a device node by. Nil for anything else and when it cannot be examined.
    public static func characterDeviceNumber(path: String) -> UInt64? {
        guard let info = try? FilePath(path).stat() else { return nil }
        let raw = info.rawValue
        guard raw.st_mode & S_IFMT == S_IFCHR else { return nil }
        return UInt64(raw.st_rdev)
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

    private static func describe(_ errno: Errno) -> String {
        switch errno {
        case .noSuchFileOrDirectory: "no such file"
        case .tooManySymbolicLinkLevels: "too many levels of symbolic links (a symlink loop?)"
        case .permissionDenied, .notPermitted: "permission denied"
        case .notDirectory: "a component of the path is not a directory"
        case .fileNameTooLong: "the path is too long"
        case .isDirectory: "is a directory"
        default: errno.description.lowercased()
        }
    }
}

/// One version of a file, as `RegularFile.identity(path:)` sees it.
public struct FileIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Nanoseconds since the epoch.
    public var modified: Int64
    public var changed: Int64
}
