import CSystemd  // its sd-daemon.h owns the socket constants in this module graph
import EvdevInput
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The listening `AF_UNIX` `SOCK_STREAM` socket: bound by the daemon, or passed by systemd.
public final class UnixListener {
    public let fd: Int32
    /// The path the daemon bound (and removes on close); nil for an inherited socket.
    public let createdPath: String?
    private var closed = false

    /// Adopts a listening socket passed by the service manager (socket activation).
    public init(adopting fd: Int32) {
        self.fd = fd
        createdPath = nil
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
        try UnixListener.removeStaleSocket(at: path)
        let fd = try SystemCall.posixBlocking("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do throws(SystemError) {
            var address = UnixListener.address(path)
            // Narrow the umask so the file never exists with wider permissions than asked.
            let oldMask = umask(0o177)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            let bindErrno = errno
            umask(oldMask)
            if bound < 0 { throw SystemError(errno: bindErrno, call: "bind", path: path) }
            try SystemCall.posixBlocking("chmod", path: path) { chmod(path, mode_t(mode)) }
            if let group {
                try SystemCall.posixBlocking("chown", path: path) { chown(path, uid_t.max, group) }
            }
            try SystemCall.posixBlocking("listen") { listen(fd, 128) }
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
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

    /// Closes the socket and removes the file the daemon created.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
        if let createdPath { unlink(createdPath) }
    }

    /// Removes `path` if it is a socket nobody accepts on; fails if a server is listening
    /// there or the path is something else.
    static func removeStaleSocket(at path: String) throws(SystemError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemError(errno: EEXIST, call: "\(path) exists and is not a socket")
        }
        let probe = try SystemCall.posixBlocking("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { Glibc.close(probe) }
        var address = address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 {
            throw SystemError(errno: EADDRINUSE, call: "another server is listening on \(path)")
        }
        unlink(path)
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
