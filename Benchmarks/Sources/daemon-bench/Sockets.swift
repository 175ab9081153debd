import Glibc
import SystemCalls

/// Connects a blocking Unix stream socket to `path`; nil if nothing listens there yet.
/// The caller owns the descriptor (the measuring code polls raw descriptors).
func connectUnix(_ path: String) -> Int32? {
    (try? UnixSocket.connect(to: path))?.rawValue
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
