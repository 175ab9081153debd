import CSystemd  // its sd-daemon.h owns the socket constants in this module graph
import EvdevInput
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The listening `AF_UNIX` `SOCK_STREAM` socket: bound by the daemon, or passed by systemd.
///
/// Binding a path in a directory someone else may write (the daemon runs as root; an
/// operator may point `socket` anywhere) never changes the mode or owner of anything but
/// the socket it created: the socket is bound inside a private directory the daemon creates
/// next to the path (mode 0700, checked to be its own through a descriptor), its mode and
/// group are set there, relative to that directory and without following links, and it is
/// then renamed into place. A file already at the path is replaced only when it is a socket
/// that refuses connections (`ECONNREFUSED`: nothing listens); on close the path is removed
/// only while it is still the socket the daemon created (same device and inode).
public final class UnixListener {
    public let fd: Int32
    /// The path the daemon bound (and removes on close); nil for an inherited socket.
    public let createdPath: String?
    /// The bound socket file's identity, and the directory it was published in.
    private let created: (device: UInt64, inode: UInt64, directory: Int32, name: String)?
    private var closed = false

    /// Adopts a listening socket passed by the service manager (socket activation).
    public init(adopting fd: Int32) {
        self.fd = fd
        createdPath = nil
        created = nil
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Binds `path`, replacing a stale socket file that nothing listens on, with
    /// permission bits `mode` and, when given, group `group`.
    public init(path: String, mode: UInt32, group: gid_t?) throws(SystemError) {
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw SystemError(errno: ENAMETOOLONG, call: "bind", path: path)
        }
        try UnixListener.createParentDirectory(of: path)
        let (directoryPath, name) = UnixListener.split(path)
        let directory = try SystemCall.posixBlocking("open", path: directoryPath) {
            open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        do throws(SystemError) {
            let replacing = try UnixListener.staleSocketExists(at: path)
            let (fd, identity) = try UnixListener.bindPrivately(in: directory, directoryPath: directoryPath, publishAs: name,
                                                                replacing: replacing, mode: mode, group: group, path: path)
            self.fd = fd
            created = (identity.device, identity.inode, directory, name)
        } catch {
            Glibc.close(directory)
            throw error
        }
        createdPath = path
    }

    deinit {
        close()
    }

    /// Creates the socket's directory (and its parents, mode 0755) when missing, as for
    /// `/run/gestured` when the daemon runs by hand rather than with systemd's
    /// `RuntimeDirectory=`. An existing directory is left as it is.
    static func createParentDirectory(of path: String) throws(SystemError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        guard !components.isEmpty else { return }
        var directory = path.hasPrefix("/") ? "" : "."
        while let next = components.popFirst() {
            directory += "/" + next
            if mkdir(directory, 0o755) != 0, errno != EEXIST {
                throw SystemError(errno: errno, call: "mkdir", path: directory)
            }
        }
    }

    /// Closes the socket and removes the file the daemon created, if the path still is it
    /// (another daemon may have replaced a path it thought stale; it is not ours to remove).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
        guard let created else { return }
        var info = stat()
        if fstatat(created.directory, created.name, &info, AT_SYMLINK_NOFOLLOW) == 0,
           UInt64(info.st_dev) == created.device, UInt64(info.st_ino) == created.inode {
            unlinkat(created.directory, created.name, 0)
        }
        Glibc.close(created.directory)
    }

    /// Whether a stale socket (one nothing listens on) is at `path`: false when nothing is
    /// there; throws when something else is, when a server answers, or when the probe
    /// cannot tell (only `ECONNREFUSED` proves nobody listens: `EACCES` from a daemon
    /// started as another user says nothing about a live server's socket).
    static func staleSocketExists(at path: String) throws(SystemError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw SystemError(errno: errno, call: "lstat", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemError(errno: EEXIST, call: "\(path) exists and is not a socket")
        }
        let probe = try SystemCall.posixBlocking("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        defer { Glibc.close(probe) }
        var address = address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let code = connected == 0 ? 0 : errno
        switch code {
        case ECONNREFUSED:
            return true
        case ENOENT:
            return false  // removed since the lstat
        case 0, EAGAIN, EINPROGRESS:
            // Accepted, or a listener whose backlog is full: alive either way.
            throw SystemError(errno: EADDRINUSE, call: "another server is listening on \(path)")
        default:
            throw SystemError(errno: code, call: "cannot tell whether a server listens on \(path): connect")
        }
    }

    /// Binds and listens inside a fresh private directory next to the path, sets the
    /// socket's mode and group there, then renames it to `name` in `directory`. Returns the
    /// listening descriptor and the socket file's device and inode.
    private static func bindPrivately(in directory: Int32, directoryPath: String, publishAs name: String, replacing: Bool,
                                      mode: UInt32, group: gid_t?, path: String) throws(SystemError) -> (Int32, (device: UInt64, inode: UInt64)) {
        let (privateName, privateDirectory) = try makePrivateDirectory(in: directory, directoryPath: directoryPath)
        let socketName = "s"
        defer {
            unlinkat(privateDirectory, socketName, 0)  // nothing there once published
            Glibc.close(privateDirectory)
            unlinkat(directory, privateName, AT_REMOVEDIR)
        }
        let fd = try SystemCall.posixBlocking("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(SystemError) {
            // Through the descriptor: the directory bound in is the one checked, whatever
            // happens to the name meanwhile. (Without /proc, by name: the socket is then
            // found, or not, through the descriptor below.)
            var bound = bind(fd, to: "/proc/self/fd/\(privateDirectory)/\(socketName)")
            if bound == ENOENT {
                bound = bind(fd, to: "\(directoryPath)/\(privateName)/\(socketName)")
            }
            if bound != 0 { throw SystemError(errno: bound, call: "bind", path: path) }
            try SystemCall.posixBlocking("chmod", path: path) { fchmodat(privateDirectory, socketName, mode_t(mode), 0) }
            if let group {
                try SystemCall.posixBlocking("chown", path: path) {
                    fchownat(privateDirectory, socketName, uid_t.max, group, AT_SYMLINK_NOFOLLOW)
                }
            }
            var info = stat()
            try SystemCall.posixBlocking("stat", path: path) { fstatat(privateDirectory, socketName, &info, AT_SYMLINK_NOFOLLOW) }
            guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw SystemError(errno: EEXIST, call: "bind", path: path) }
            try SystemCall.posixBlocking("listen") { listen(fd, 128) }
            if replacing {
                try SystemCall.posixBlocking("rename", path: path) { renameat(privateDirectory, socketName, directory, name) }
            } else {
                try SystemCall.posixBlocking("rename", path: path) {
                    gestured_rename_noreplace(privateDirectory, socketName, directory, name)
                }
            }
            return (fd, (UInt64(info.st_dev), UInt64(info.st_ino)))
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// A new directory `.gestured-XXXXXX` (mode 0700) in `directory`, opened without
    /// following links and checked to be the daemon's own.
    private static func makePrivateDirectory(in directory: Int32, directoryPath: String) throws(SystemError) -> (String, Int32) {
        var template = Array("\(directoryPath)/.gestured-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw SystemError(errno: errno, call: "mkdtemp", path: directoryPath)
        }
        let made = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = split(made).name
        let fd = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw SystemError(errno: errno, call: "open", path: made)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            Glibc.close(fd)
            throw SystemError(errno: EPERM, call: "\(made) is not the daemon's own private directory (replaced meanwhile?)")
        }
        return (name, fd)
    }

    /// `bind` to `path`: 0, or the errno.
    private static func bind(_ fd: Int32, to path: String) -> Int32 {
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return ENAMETOOLONG }
        var address = address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return bound == 0 ? 0 : errno
    }

    /// The directory and the last component of `path` (`.` for a bare name).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in path.utf8.enumerated() where i < buffer.count - 1 {
                buffer[i] = byte
            }
        }
        return address
    }
}

/// The group id of a group name or number.
public func groupID(named name: String) -> gid_t? {
    if let number = gid_t(name) { return number }
    guard let entry = getgrnam(name) else { return nil }
    return entry.pointee.gr_gid
}
