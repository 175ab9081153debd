import CSystemCalls
import Glibc
import SystemPackage

/// The address of a Unix-domain socket file: the one place a `sockaddr_un` is built (by
/// the daemon's listener, the client library, the tests, the end-to-end driver and the
/// benchmarks alike). A path that does not fit `sun_path` is refused here, never truncated.
public struct UnixSocketAddress: Sendable, Hashable, CustomStringConvertible {
    public let path: String

    /// The longest path `sun_path` holds with its terminating NUL (107 bytes on Linux).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Throws `ENAMETOOLONG` for a path longer than `maximumPathLength`, `EINVAL` for one
    /// with a NUL byte (it would name another file) or an empty one.
    public init(_ path: String) throws(SystemError) {
        guard path.utf8.count <= Self.maximumPathLength else {
            throw SystemError(.fileNameTooLong, call: "sockaddr_un", path: path)
        }
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw SystemError(.invalidArgument, call: "sockaddr_un", path: path)
        }
        self.path = path
    }

    public var description: String { path }

    /// Calls `body` with the address as `bind`, `connect` and `sendto` take it.
    @discardableResult
    public func withSockaddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)  // the rest is zero: the terminating NUL
        }
        return try withUnsafePointer(to: &address) { (pointer) throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(Failure) -> Result in
                try body(raw, socklen_t(MemoryLayout<sockaddr_un>.size))
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
