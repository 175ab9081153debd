import Foundation
import GestureClient
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Testing

/// The Swift client against a peer that is not the daemon.
@Suite struct HostileClientTests {
    /// Before, a peer that streams bytes without a newline grew the client's buffer
    /// without bound (and rescanned it from its start on every read). Fails on the earlier
    /// code, whose stream simply ended when this peer closed after 3 MiB: now it
    /// ends with `LineTooLong` once the line passes 1 MiB.
    @Test func theClientBoundsALineWithoutANewline() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("not-gestured.sock")
        let listener = try UnixSocket.bind(.stream, to: path)
        defer { try? listener.close() }
        guard Glibc.listen(listener.rawValue, 4) == 0 else { throw TestFailure(description: "listen failed") }
        let server = Thread {
            guard case .processed(let peer)? = try? UnixSocket.accept(from: listener) else { return }
            _ = fcntl(peer.rawValue, F_SETFL, fcntl(peer.rawValue, F_GETFL) & ~O_NONBLOCK)  // accepted non-blocking
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
            for _ in 0..<48 {  // 3 MiB at most, then the close
                let sent = chunk.withUnsafeBytes { Glibc.send(peer.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break }
            }
            try? peer.close()
        }
        server.start()
        let client = try GestureClient.connect(path: path)
        await #expect(throws: LineFramer.LineTooLong.self) {
            for try await _ in client.received {}
        }
    }
}
