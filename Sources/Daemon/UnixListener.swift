import Glibc
import SystemCalls
import SystemPackage

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
    /// The listening socket (non-blocking).
    public let socket: FileDescriptor
    /// The path the daemon bound (and removes on close); nil for an inherited socket.
    public let createdPath: String?
    /// The bound socket file's identity, and the directory it was published in.
    private let created: (device: UInt64, inode: UInt64, directory: FileDescriptor, name: String)?
    private var closed = false

    /// Adopts a listening socket passed by the service manager (socket activation).
    public init(adopting socket: FileDescriptor) {
        self.socket = socket
        createdPath = nil
        created = nil
        UnixSocket.setNonBlocking(socket)
    }

    /// Binds `path`, replacing a stale socket file that nothing listens on, with
    /// permission bits `mode` and, when given, group `group`.
    public init(path: String, mode: UInt32, group: gid_t?) throws(SystemError) {
        _ = try UnixSocketAddress(path)  // too long a path is refused before anything is created
        try UnixListener.createParentDirectory(of: path)
        let (directoryPath, name) = UnixListener.split(path)
        let directory = try SystemCall.adopting("open", path: directoryPath) {
            try FileDescriptor.open(directoryPath, .readOnly, options: [.directory, .closeOnExec])
        }
        do throws(SystemError) {
            let replacing = try UnixListener.staleSocketExists(at: path)
            let (socket, identity) = try UnixListener.bindPrivately(
                in: directory, directoryPath: directoryPath, publishAs: name,
                replacing: replacing, mode: mode, group: group, path: path)
            self.socket = socket
            created = (identity.device, identity.inode, directory, name)
        } catch {
            try? directory.close()
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
            try RegularFile.makeDirectory(path: directory, mode: 0o755)
        }
    }

    /// Closes the socket and removes the file the daemon created, if the path still is it
    /// (another daemon may have replaced a path it thought stale; it is not ours to remove).
    public func close() {
        guard !closed else { return }
        closed = true
        try? socket.close()
        guard let created else { return }
        if let info = try? FilePath(created.name).stat(relativeTo: created.directory, flags: .symlinkNoFollow),
            UInt64(info.deviceID.rawValue) == created.device, UInt64(info.inode.rawValue) == created.inode
        {
            RegularFile.remove(created.name, in: created.directory)
        }
        try? created.directory.close()
    }

    /// Whether a stale socket (one nothing listens on) is at `path`: false when nothing is
    /// there; throws when something else is, when a server answers, or when the probe
    /// cannot tell (only `ECONNREFUSED` proves nobody listens: `EACCES` from a daemon
    /// started as another user says nothing about a live server's socket).
    static func staleSocketExists(at path: String) throws(SystemError) -> Bool {
        let info: Stat
        do {
            info = try FilePath(path).stat(followTargetSymlink: false)
        } catch .noSuchFileOrDirectory {
            return false
        } catch {
            throw SystemError(error, call: "lstat", path: path)
        }
        guard info.type == .socket else {
            throw SystemError(.fileExists, call: "\(path) exists and is not a socket")
        }
        let probe = try UnixSocket.make(.stream, nonBlocking: true)
        defer { try? probe.close() }
        do {
            try UnixSocketAddress(path).connect(probe)
        } catch {
            switch error.errno {
            case .connectionRefused:
                return true
            case .noSuchFileOrDirectory:
                return false  // removed since the lstat
            case .resourceTemporarilyUnavailable, .nowInProgress:
                break  // a listener whose backlog is full: alive
            default:
                throw SystemError(error.errno, call: "cannot tell whether a server listens on \(path): connect")
            }
        }
        throw SystemError(.addressInUse, call: "another server is listening on \(path)")
    }

    /// Binds and listens inside a fresh private directory next to the path, sets the
    /// socket's mode and group there, then renames it to `name` in `directory`. Returns the
    /// listening socket and the socket file's device and inode.
    private static func bindPrivately(
        in directory: FileDescriptor, directoryPath: String, publishAs name: String, replacing: Bool,
        mode: UInt32, group: gid_t?, path: String
    ) throws(SystemError) -> (FileDescriptor, (device: UInt64, inode: UInt64)) {
        let (privateName, privateDirectory) = try makePrivateDirectory(in: directory, directoryPath: directoryPath)
        let socketName = "s"
        defer {
            RegularFile.remove(socketName, in: privateDirectory)  // nothing there once published
            try? privateDirectory.close()
            RegularFile.remove(privateName, in: directory, isDirectory: true)
        }
        let socket = try UnixSocket.make(.stream, nonBlocking: true)
        do throws(SystemError) {
            // Through the descriptor: the directory bound in is the one checked, whatever
            // happens to the name meanwhile. (Without /proc, by name: the socket is then
            // found, or not, through the descriptor below.)
            do {
                do {
                    try UnixSocketAddress("/proc/self/fd/\(privateDirectory.rawValue)/\(socketName)").bind(socket)
                } catch  where error.errno == .noSuchFileOrDirectory {
                    try UnixSocketAddress("\(directoryPath)/\(privateName)/\(socketName)").bind(socket)
                }
            } catch {
                throw SystemError(error.errno, call: "bind", path: path)
            }
            try SystemCall.posixBlocking("chmod", path: path) { fchmodat(privateDirectory.rawValue, socketName, mode_t(mode), 0) }
            if let group {
                try SystemCall.posixBlocking("chown", path: path) {
                    fchownat(privateDirectory.rawValue, socketName, uid_t.max, group, AT_SYMLINK_NOFOLLOW)
                }
            }
            let info: Stat
            do {
                info = try FilePath(socketName).stat(relativeTo: privateDirectory, flags: .symlinkNoFollow)
            } catch {
                throw SystemError(error, call: "stat", path: path)
            }
            guard info.type == .socket else { throw SystemError(.fileExists, call: "bind", path: path) }
            try SystemCall.posixBlocking("listen") { listen(socket.rawValue, 128) }
            if replacing {
                try SystemCall.posixBlocking("rename", path: path) {
                    renameat(privateDirectory.rawValue, socketName, directory.rawValue, name)
                }
            } else {
                try renameWithoutReplacing(socketName, in: privateDirectory, to: name, in: directory, path: path)
            }
            return (socket, (UInt64(info.deviceID.rawValue), UInt64(info.inode.rawValue)))
        } catch {
            try? socket.close()
            throw error
        }
    }

    /// A new directory `.gestured-XXXXXX` (mode 0700) in `directory`, opened without
    /// following links and checked to be the daemon's own.
    private static func makePrivateDirectory(in directory: FileDescriptor, directoryPath: String) throws(SystemError) -> (
        String, FileDescriptor
    ) {
        var template = Array("\(directoryPath)/.gestured-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw SystemError(Errno(rawValue: errno), call: "mkdtemp", path: directoryPath)
        }
        let made = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = split(made).name
        let fd = FileDescriptor(
            rawValue: try SystemCall.posixBlocking("open", path: made) {
                openat(directory.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            })
        guard let info = try? fd.stat(), info.userID.rawValue == geteuid(), info.permissions.rawValue & 0o077 == 0 else {
            try? fd.close()
            throw SystemError(.notPermitted, call: "\(made) is not the daemon's own private directory (replaced meanwhile?)")
        }
        return (name, fd)
    }

    /// The directory and the last component of `path` (`.` for a bare name).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}

/// The group id of a group name or number.
public func groupID(named name: String) -> gid_t? {
    if let number = gid_t(name) { return number }
    guard let entry = getgrnam(name) else { return nil }
    return entry.pointee.gr_gid
}
