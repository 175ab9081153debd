import Glibc

/// Connects a blocking Unix stream socket to `path`; nil if nothing listens there yet.
func connectUnix(_ path: String) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    precondition(bytes.count < MemoryLayout.size(ofValue: address.sun_path), "socket path too long")
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if result != 0 {
        close(fd)
        return nil
    }
    return fd
}

/// Waits (up to `timeoutMs`) until something accepts connections at `path`.
func waitForListener(_ path: String, timeoutMs: Int = 20_000) throws {
    var waited = 0
    while waited < timeoutMs {
        if let fd = connectUnix(path) {
            close(fd)
            return
        }
        sleepMilliseconds(20)
        waited += 20
    }
    throw BenchError("nothing listens at \(path)")
}

func sendAll(_ fd: Int32, _ text: String) throws {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
        if sent < 0 {
            if errno == EINTR || errno == EAGAIN { continue }
            throw BenchError("send failed: \(String(cString: strerror(errno)))")
        }
        offset += sent
    }
}

/// Reads from a blocking socket until one whole line arrived; returns it (without newline).
func readLine(_ fd: Int32) throws -> String {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
        let count = recv(fd, &byte, 1, 0)
        if count < 0 && errno == EINTR { continue }
        guard count == 1 else { throw BenchError("connection closed before a whole line") }
        if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte)
    }
}

func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
}

/// A bound datagram socket standing in for systemd's NOTIFY_SOCKET: counts what arrives.
final class NotifyReceiver {
    let path: String
    let fd: Int32
    private(set) var messages: [String] = []

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, result == 0 else { throw BenchError("cannot bind \(path)") }
    }

    /// Takes every datagram waiting.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }

    func count(containing text: String) -> Int {
        messages.filter { $0.contains(text) }.count
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
