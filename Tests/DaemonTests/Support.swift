import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Generous bound for anything a test waits on; tests never sleep.
let waitLimitMilliseconds: Int32 = 10_000

/// A fresh temporary directory, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gestured-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}

/// Waits until `fd` is readable; false on timeout.
func waitReadable(_ fd: Int32, milliseconds: Int32 = waitLimitMilliseconds) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let result = poll(&entry, 1, milliseconds)
        if result < 0 && errno == EINTR { continue }
        return result > 0
    }
}

/// A blocking line-oriented client of the daemon's socket.
final class LineClient {
    let fd: Int32
    private let reader: LineReader

    init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in path.utf8.enumerated() { buffer[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw TestFailure(description: "connect \(path): \(String(cString: strerror(code)))")
        }
        self.fd = fd
        reader = LineReader(fd: fd)
    }

    deinit {
        close(fd)
    }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The next line, or nil at end of stream / timeout.
    func readLine() -> String? {
        reader.readLine()
    }

    /// The next line as a JSON object.
    func readMessage() throws -> [String: Any] {
        guard let line = readLine() else { throw TestFailure(description: "connection closed or timed out") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure(description: "not a JSON object: \(line)")
        }
        return object
    }

    /// Reads messages until one of `type`, returning it.
    func readMessage(ofType type: String) throws -> [String: Any] {
        while true {
            let message = try readMessage()
            if message["type"] as? String == type { return message }
        }
    }

    /// True when the server closed the connection (after any remaining lines).
    func readsEndOfStream() -> Bool {
        while true {
            if readLine() == nil { return true }
        }
    }

    /// A ping/pong round trip: every request sent before has been handled.
    func sync() throws {
        send("{\"type\":\"ping\"}\n")
        _ = try readMessage(ofType: "pong")
    }
}

/// Reads lines from a descriptor (a socket, a child's stdout) with a bounded wait.
final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line, or nil at end of stream / timeout.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard waitReadable(fd) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
