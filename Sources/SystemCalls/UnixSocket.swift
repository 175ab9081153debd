import CSystemCalls
import Glibc
import SystemPackage

/// The address of a Unix-domain socket file: the one place a `sockaddr_un` is built (by
/// the daemon's listener, the client library, the tests, the end-to-end driver and the
/// benchmarks alike). A path that does not fit `sun_path` is refused here, never truncated.
public struct UnixSocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The file's path, or for an abstract address its name (without the leading NUL).
    public let path: String
    /// Whether the address is in Linux's abstract namespace (no file: `sun_path` starts
    /// with a NUL byte, as systemd's `NOTIFY_SOCKET=@name` names one).
    public let isAbstract: Bool

    /// The longest path `sun_path` holds with its terminating NUL (107 bytes on Linux).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Throws `ENAMETOOLONG` for a path longer than `maximumPathLength`, `EINVAL` for one
    /// with a NUL byte (it would name another file) or an empty one.
    public init(_ path: String) throws(SystemError) {
        try self.init(path, isAbstract: false)
    }

    /// An address in the abstract namespace: `name` (not empty, no NUL, at most
    /// `maximumPathLength` bytes) after a NUL byte.
    public init(abstractName name: String) throws(SystemError) {
        try self.init(name, isAbstract: true)
    }

    private init(_ path: String, isAbstract: Bool) throws(SystemError) {
        guard path.utf8.count <= Self.maximumPathLength else {
            throw SystemError(.fileNameTooLong, call: "sockaddr_un", path: path)
        }
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw SystemError(.invalidArgument, call: "sockaddr_un", path: path)
        }
        self.path = path
        self.isAbstract = isAbstract
    }

    public var description: String { isAbstract ? "@\(path)" : path }

    /// Calls `body` with the address as `bind`, `connect` and `sendto` take it.
    @discardableResult
    public func withSockaddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let start = isAbstract ? 1 : 0  // an abstract name follows a NUL byte
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            UnsafeMutableRawBufferPointer(rebasing: buffer[start...]).copyBytes(from: path.utf8)  // the rest is zero: the terminating NUL
        }
        // An abstract name is exactly its bytes long (a trailing NUL would be part of it).
        let length =
            isAbstract
            ? MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + 1 + path.utf8.count : MemoryLayout<sockaddr_un>.size
        return try withUnsafePointer(to: &address) { (pointer) throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(Failure) -> Result in
                try body(raw, socklen_t(length))
            }
        }
    }

    /// `bind(2)`s `socket` to this path.
    public func bind(_ socket: FileDescriptor) throws(SystemError) {
        try withSockaddr { (address, length) throws(SystemError) in
            try SystemCall.posixBlocking("bind", path: path) { Glibc.bind(socket.rawValue, address, length) }
        }
    }

    /// `connect(2)`s `socket` to this path. Every failure is thrown, would-block included
    /// (`EAGAIN`: a listener whose backlog is full), so a caller can tell them apart.
    public func connect(_ socket: FileDescriptor) throws(SystemError) {
        try withSockaddr { (address, length) throws(SystemError) in
            guard Glibc.connect(socket.rawValue, address, length) == 0 else {
                throw SystemError(Errno(rawValue: Glibc.errno), call: "connect", path: path)
            }
        }
    }
}

/// `AF_UNIX` sockets, always close-on-exec.
public enum UnixSocket {
    public enum Kind: Sendable {
        case stream, datagram

        var rawValue: Int32 {
            switch self {
            case .stream: Int32(SOCK_STREAM.rawValue)
            case .datagram: Int32(SOCK_DGRAM.rawValue)
            }
        }
    }

    /// A new unbound socket.
    public static func make(_ kind: Kind = .stream, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return FileDescriptor(rawValue: try SystemCall.posixBlocking("socket") { socket(AF_UNIX, kind.rawValue | flags, 0) })
    }

    /// A stream socket connected to `path` (closed again when the connection fails).
    public static func connect(to path: String, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        let address = try UnixSocketAddress(path)
        let socket = try make(.stream, nonBlocking: nonBlocking)
        do {
            try address.connect(socket)
        } catch {
            try? socket.close()
            throw error
        }
        return socket
    }

    /// A socket bound to `path` (closed again when binding fails); a stream socket still
    /// has to `listen`.
    public static func bind(_ kind: Kind, to path: String, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        let address = try UnixSocketAddress(path)
        let socket = try make(kind, nonBlocking: nonBlocking)
        do {
            try address.bind(socket)
        } catch {
            try? socket.close()
            throw error
        }
        return socket
    }

    /// `accept4(2)` on a listening socket: the connection, non-blocking and close-on-exec,
    /// or `.wouldBlock` when none is waiting.
    public static func accept(from listener: FileDescriptor) throws(SystemError) -> IOResult<FileDescriptor> {
        switch try SystemCall.posix("accept4", { gestured_accept_nonblocking(listener.rawValue) }) {
        case .processed(let fd): .processed(FileDescriptor(rawValue: fd))
        case .wouldBlock: .wouldBlock
        }
    }

    /// `send(2)` of `bytes` from `offset`, with `MSG_NOSIGNAL` (a peer that went is
    /// `EPIPE`, not a signal) and, when `nonBlocking`, `MSG_DONTWAIT`: how many bytes went
    /// (possibly fewer than offered), or `.wouldBlock` when the socket is full.
    public static func send(_ socket: FileDescriptor, _ bytes: [UInt8], from offset: Int = 0, nonBlocking: Bool) throws(SystemError)
        -> IOResult<Int>
    {
        precondition(offset >= 0 && offset <= bytes.count, "send offset outside the bytes")
        let flags = Int32(MSG_NOSIGNAL) | (nonBlocking ? Int32(MSG_DONTWAIT) : 0)
        return try SystemCall.posix("send") {
            bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, offset < buffer.count else { return 0 }
                return Glibc.send(socket.rawValue, base + offset, buffer.count - offset, flags)
            }
        }
    }

    /// Sends all of `bytes` on a blocking socket (`send` may take part of them, e.g. when
    /// a signal interrupts it after some went).
    public static func sendAll(_ socket: FileDescriptor, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            switch try send(socket, bytes, from: offset, nonBlocking: false) {
            case .processed(let count): offset += count
            case .wouldBlock: throw SystemError(.resourceTemporarilyUnavailable, call: "send")
            }
        }
    }

    /// `recv(2)` into `buffer`: how many bytes arrived (0: the peer closed its end), or
    /// `.wouldBlock` when none are waiting on a non-blocking socket.
    public static func receive(_ socket: FileDescriptor, into buffer: inout [UInt8]) throws(SystemError) -> IOResult<Int> {
        try SystemCall.posix("recv") {
            buffer.withUnsafeMutableBytes { Glibc.recv(socket.rawValue, $0.baseAddress, $0.count, 0) }
        }
    }

    /// What kind of socket `descriptor` is (`SO_DOMAIN`, `SO_TYPE`, `SO_ACCEPTCONN`), nil
    /// when it is not a socket (or not open).
    public static func kind(of descriptor: FileDescriptor) -> SocketKind? {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return (try? SystemCall.posixBlocking("getsockopt") { getsockopt(descriptor.rawValue, SOL_SOCKET, name, &value, &length) })
                .map { _ in value }
        }
        guard let family = option(SO_DOMAIN), let type = option(SO_TYPE), let listening = option(SO_ACCEPTCONN) else { return nil }
        return SocketKind(family: family, type: type, isListening: listening == 1)
    }

    /// Makes `socket` non-blocking (a listening socket systemd passed, which may be
    /// blocking).
    public static func setNonBlocking(_ socket: FileDescriptor) {
        guard let flags = try? SystemCall.posixBlocking("fcntl", { fcntl(socket.rawValue, F_GETFL) }) else { return }
        _ = try? SystemCall.posixBlocking("fcntl") { fcntl(socket.rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `shutdown(2)` of both directions: a thread blocked reading the socket wakes up.
    public static func shutdown(_ socket: FileDescriptor) {
        _ = Glibc.shutdown(socket.rawValue, Int32(SHUT_RDWR))
    }

    /// `SO_PEERCRED`: who is at the other end of a connected socket, nil if unknown.
    public static func peerCredentials(_ socket: FileDescriptor) -> PeerCredentials? {
        var credentials = gestured_peer_credentials()
        guard gestured_get_peer_credentials(socket.rawValue, &credentials) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }
}

/// A socket's address family (`AF_UNIX`, `AF_INET` …), type (`SOCK_STREAM` …) and whether
/// it listens: what a descriptor systemd passed is checked against.
public struct SocketKind: Sendable, Hashable {
    public var family: Int32
    public var type: Int32
    public var isListening: Bool

    /// Whether this is a listening `AF_UNIX` `SOCK_STREAM` socket.
    public var isListeningUnixStream: Bool {
        family == AF_UNIX && type == Int32(SOCK_STREAM.rawValue) && isListening
    }
}

/// The process and user at the other end of a Unix socket, as the kernel recorded them
/// when it connected.
public struct PeerCredentials: Sendable, Hashable {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t
}

/// `renameat2(…, RENAME_NOREPLACE)`: renames `name` in `directory` to `newName` in
/// `newDirectory`, failing with `EEXIST` rather than replacing a file already there.
public func renameWithoutReplacing(
    _ name: String, in directory: FileDescriptor, to newName: String, in newDirectory: FileDescriptor, path: String
) throws(SystemError) {
    try SystemCall.posixBlocking("rename", path: path) {
        gestured_rename_noreplace(directory.rawValue, name, newDirectory.rawValue, newName)
    }
}
