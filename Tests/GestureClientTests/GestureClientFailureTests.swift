import Foundation
import GestureClient
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage
import Testing

/// How the Swift client reports a connection that fails under it. Each peer is a
/// thread on a listening socket of the test's own; every wait is on the peer's bytes, not
/// on time.
@Suite struct GestureClientFailureTests {
    /// A peer that accepts and runs `body` with the connection (blocking), then closes it.
    private func peer(at path: String, _ body: @escaping @Sendable (FileDescriptor) -> Void) throws -> FileDescriptor {
        let listener = try UnixSocket.bind(.stream, to: path)
        guard Glibc.listen(listener.rawValue, 4) == 0 else { throw TestFailure(description: "listen failed") }
        let thread = Thread {
            guard case .processed(let connection)? = try? UnixSocket.accept(from: listener) else { return }
            _ = fcntl(connection.rawValue, F_SETFL, fcntl(connection.rawValue, F_GETFL) & ~O_NONBLOCK)  // accepted non-blocking
            body(connection)
            try? connection.close()
        }
        thread.start()
        return listener
    }

    /// A `recv` that fails (here `ECONNRESET`: the peer closed with our request unread)
    /// ended the stream as if the server had closed cleanly. Fails on the earlier
    /// code, whose `for try await` simply finished: now it throws, naming the socket.
    @Test func aFailedReceiveEndsTheStreamWithAnError() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("resets.sock")
        let listener = try peer(at: path) { connection in
            // Wait for the request without reading it; closing then resets the connection.
            var byte: UInt8 = 0
            _ = recv(connection.rawValue, &byte, 1, Int32(MSG_PEEK))
        }
        defer { try? listener.close() }
        let client = try GestureClient.connect(path: path)
        try client.ping()
        do {
            for try await _ in client.received {}
            Issue.record("the stream ended as a clean close")
        } catch let error as ConnectionError {
            #expect(error == .failed(path: path, reason: "recv: \(Errno.connectionReset)"))
        }
    }

    /// A request larger than the socket's buffer that the peer stops taking halfway: the
    /// first `send` returns part of it, and the client read `errno` after that success
    /// (`send: Success`, or whatever an earlier call left). Fails on the earlier code:
    /// now the rest is sent, and the `send` that fails says why.
    @Test func aSendThatFailsHalfwaySaysWhy() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("stops-reading.sock")
        let listener = try peer(at: path) { connection in
            // Some of the request has arrived, so the client is inside its one large send.
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(connection.rawValue, &buffer, buffer.count, Int32(MSG_WAITALL))
        }
        defer { try? listener.close() }
        let client = try GestureClient.connect(path: path)
        let huge = SubscribeRequest(regions: Array(repeating: String(repeating: "r", count: 1000), count: 8000))
        do {
            try client.send(.subscribe(huge))
            Issue.record("8 MB sent to a peer that read 4 KiB")
        } catch {
            let reasons = ["send: \(Errno.connectionReset)", "send: \(Errno.brokenPipe)"]
            #expect(reasons.contains { error == .failed(path: path, reason: $0) }, "\(error)")
        }
    }
}
