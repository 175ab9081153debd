import ConfigFile
import GestureTestSupport
import Glibc
import Logging
import SystemCalls
import Testing

@testable import WebBridge

/// A blocking TCP client of the bridge on 127.0.0.1, every read bounded by a 5 s timeout.
final class LoopbackClient {
    let fd: Int32

    /// `sendTimeout`: seconds a send may block (a bridge that stops reading ends it).
    init(port: UInt16, receiveBuffer: Int32? = nil, sendTimeout: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sendLimit = timeval(tv_sec: sendTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendLimit, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw LoopbackError(description: "connect: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// False when the bridge closed the connection (or the send timed out).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Up to `count` bytes; fewer at the end of the stream or after the timeout.
    func read(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < count {
            let got = recv(fd, &chunk, min(chunk.count, count - bytes.count), 0)
            if got <= 0 { break }
            bytes += chunk[..<got]
        }
        return bytes
    }

    /// Reads until `text` has arrived; everything read. Bounded by the timeout.
    func read(until text: String) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while !String(decoding: bytes, as: UTF8.self).hasSuffix(text), recv(fd, &byte, 1, 0) == 1 {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the bridge closes the connection (reads until the end, bounded).
    func readsEndOfStream() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<1_000 {
            let got = recv(fd, &chunk, chunk.count, 0)
            if got == 0 { return true }
            if got < 0 { return errno == ECONNRESET }
        }
        return false
    }

    /// The next WebSocket frame the bridge sends: opcode and payload (nil at the end).
    func readFrame() -> (opcode: UInt8, payload: [UInt8])? {
        let head = read(2)
        guard head.count == 2 else { return nil }
        var length = Int(head[1] & 0x7f)
        if length == 126 {
            let extended = read(2)
            guard extended.count == 2 else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            let extended = read(8)
            guard extended.count == 8 else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = read(length)
        guard payload.count == length else { return nil }
        return (head[0] & 0x0f, payload)
    }

    /// Reads frames until a close frame; its code (nil when the stream ends first).
    func closeCode() -> Int? {
        for _ in 0..<100_000 {
            guard let frame = readFrame() else { return nil }
            if frame.opcode == 0x8 {
                return frame.payload.count >= 2 ? Int(frame.payload[0]) << 8 | Int(frame.payload[1]) : 1005
            }
        }
        return nil
    }

    /// A WebSocket upgrade of `/ws`; the response head.
    func upgrade(port: UInt16) -> String {
        send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        return read(until: "\r\n\r\n")
    }
}

/// A client frame: `first` is FIN, RSV and opcode; masked unless `masked` is false.
func frame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true) -> [UInt8] {
    precondition(payload.count < 126)
    guard masked else { return [first, UInt8(payload.count)] + payload }
    let mask: [UInt8] = [1, 2, 3, 4]
    return [first, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
}

struct LoopbackError: Error, CustomStringConvertible {
    var description: String
}

/// A bridge on an ephemeral port of 127.0.0.1 (a listening descriptor handed over as
/// systemd would), its daemon a Unix socket that listens and never answers (connections
/// wait in its backlog) or nothing at all.
final class LoopbackBridge {
    let bridge: Bridge
    let port: UInt16
    private let daemonListener: Int32?
    let directory: String

    init(configure: (inout WebConfiguration) -> Void = { _ in }, daemonListens: Bool = true) throws {
        var template = Array("/tmp/gestured-web-loopback.XXXXXX".utf8CString)
        directory = String(cString: mkdtemp(&template))
        let socketPath = directory + "/gestured.sock"
        if daemonListens {
            let unix = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in socketPath.utf8.enumerated() { raw[index] = byte }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(unix, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            listen(unix, 64)
            daemonListener = unix
        } else {
            daemonListener = nil
        }
        var configuration = WebConfiguration()
        configuration.daemonConfig = directory + "/gestured.toml"
        configure(&configuration)
        let routes = Routes(
            policy: OriginPolicy(configuration: configuration), webRoot: directory, daemonConfig: configuration.daemonConfig)
        var logger = Logger(label: "gestured-web-test")
        logger.logLevel = .critical
        bridge = Bridge(routes: routes, socketPath: socketPath, configuration: configuration, logger: logger)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length)
                return getsockname(listener, pointer, &length)
            }
        }
        listen(listener, 64)
        port = UInt16(bigEndian: address.sin_port)
        _ = try bridge.start(addresses: [], descriptors: [listener])
    }

    /// The bridge's next connection to the daemon (waits up to 5 s); -1 when none came.
    func acceptDaemonConnection() -> Int32 {
        guard let daemonListener else { return -1 }
        var poller = pollfd(fd: daemonListener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 5_000) == 1 else { return -1 }
        let connection = accept(daemonListener, nil, nil)
        if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }  // no child spawned alongside keeps it
        return connection
    }

    /// The lines the bridge writes to the daemon connection `fd`: each of the first
    /// `expected` waited for as long as any reply (`defaultWaitMilliseconds`, so a busy
    /// machine cannot cut them short), then any more until none comes for `quiet`
    /// milliseconds (what a wrong bridge would add; bounded: at most 10 000 reads).
    static func lines(from fd: Int32, expected: Int, quiet: Int32 = 500) -> [String] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<10_000 {
            let complete = bytes.count { $0 == UInt8(ascii: "\n") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, complete < expected ? defaultWaitMilliseconds : quiet) == 1 else { break }
            let got = recv(fd, &chunk, chunk.count, 0)
            if got <= 0 { break }
            bytes += chunk[..<got]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    deinit {
        bridge.stop(reason: "test over", grace: .milliseconds(200))
        if let daemonListener { close(daemonListener) }
        unlink(directory + "/gestured.sock")
        rmdir(directory)
    }
}

@Suite("The bridge against hostile local clients, on loopback", .serialized)
struct BridgeLoopbackTests {
    /// Before, the Host check guarded only `/ws`; a DNS-rebinding page read `/metrics`
    /// (200) and the per-region tap counts in it. Fails on the earlier code: every
    /// route now refuses a foreign Host with 403, and the bridge's own Host still gets in.
    @Test func everyRouteRefusesAForeignHost() throws {
        let bridge = try LoopbackBridge(daemonListens: false)
        for path in ["/metrics", "/regions", "/", "/live.js"] {
            let client = try LoopbackClient(port: bridge.port)
            client.send("GET \(path) HTTP/1.1\r\nHost: rebind.evil.example:\(bridge.port)\r\nConnection: close\r\n\r\n")
            let response = client.read(until: "\r\n\r\n")
            #expect(response.hasPrefix("HTTP/1.1 403"), "\(path): \(response)")
        }
        let own = try LoopbackClient(port: bridge.port)
        own.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(bridge.port)\r\nConnection: close\r\n\r\n")
        #expect(own.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"))
    }

    /// Before, with no limit on connections, 1 030 idle ones used up the descriptors and
    /// the bridge spun on `accept4`. Fails on the earlier code (the fourth
    /// connection here was served): past `max-connections` a new connection is closed at
    /// once, and one closing makes room again.
    @Test func connectionsPastTheLimitAreClosedAtOnce() throws {
        let bridge = try LoopbackBridge(configure: { $0.maxConnections = 3 }, daemonListens: false)
        var held: [LoopbackClient] = []
        for _ in 0..<3 {
            let client = try LoopbackClient(port: bridge.port)
            client.send("GET /regions HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(client.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"))
            held.append(client)
        }
        let fourth = try LoopbackClient(port: bridge.port)
        #expect(fourth.readsEndOfStream())
        held.removeFirst()
        // The close reaches the bridge a moment later (on its own thread): tried again for
        // as long as any reply is waited for, so a busy machine cannot fail it.
        var served = false
        let deadline = monotonicMicroseconds() + UInt64(defaultWaitMilliseconds) * 1000
        while !served && monotonicMicroseconds() < deadline {
            let client = try LoopbackClient(port: bridge.port)
            client.send("GET /regions HTTP/1.1\r\nHost: localhost\r\n\r\n")
            served = client.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200")
            if !served { usleep(20_000) }
        }
        #expect(served)
    }

    /// An upgrade from a foreign origin is refused with 403, over the wire (NIO's upgrader
    /// raises an error for it, which must not close the connection before the answer).
    @Test func aForeignOriginsUpgradeGets403() throws {
        let bridge = try LoopbackBridge()
        let browser = try LoopbackClient(port: bridge.port)
        browser.send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(bridge.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n")
        #expect(browser.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 403"))
    }

    /// Before, after NIO's 400 (with `Connection: close`) the connection stayed open.
    /// Fails on the earlier code.
    @Test func aBadRequestIsAnsweredAndClosed() throws {
        let bridge = try LoopbackBridge(daemonListens: false)
        let client = try LoopbackClient(port: bridge.port)
        client.send("NOT HTTP AT ALL\r\n\r\n")
        #expect(client.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 400"))
        #expect(client.readsEndOfStream())
    }

    /// Before, one daemon connection per browser, unbounded: 64 browsers filled the
    /// daemon's `max-clients` and locked `gesturectl` out. Fails on the earlier code:
    /// past `daemon-connections` a browser is told 1013 (try again later).
    @Test func browsersPastTheDaemonConnectionLimitAreToldToTryAgainLater() throws {
        let bridge = try LoopbackBridge(configure: { $0.daemonConnections = 2 })
        var browsers: [LoopbackClient] = []
        for _ in 0..<2 {
            let browser = try LoopbackClient(port: bridge.port)
            #expect(browser.upgrade(port: bridge.port).hasPrefix("HTTP/1.1 101"))
            browsers.append(browser)
        }
        let third = try LoopbackClient(port: bridge.port)
        #expect(third.upgrade(port: bridge.port).hasPrefix("HTTP/1.1 101"))
        #expect(third.closeCode() == 1013)
    }

    /// Before, a browser's requests were forwarded as fast as it sent them, however far
    /// behind the replies were, so a browser flooding pings had a socket buffer's worth of
    /// them answered (thousands) before anything held it back. Fails on the earlier
    /// code (all 200 forwarded to a daemon that does not answer): now at most 16
    /// requests are at the daemon at once; each reply lets one more through.
    @Test func aBrowserHasAtMost16RequestsAtTheDaemon() throws {
        let bridge = try LoopbackBridge()
        let browser = try LoopbackClient(port: bridge.port)
        #expect(browser.upgrade(port: bridge.port).hasPrefix("HTTP/1.1 101"))
        let daemon = bridge.acceptDaemonConnection()
        #expect(daemon >= 0)
        defer { close(daemon) }
        var pings: [UInt8] = []
        for _ in 0..<200 { pings += frame(0x81, Array(#"{"type":"ping"}"#.utf8)) }
        browser.send(pings)
        #expect(
            LoopbackBridge.lines(from: daemon, expected: BrowserSession.maximumRequestsInFlight).count
                == BrowserSession.maximumRequestsInFlight)
        let pong = Array(#"{"type":"pong","time":1}"#.utf8) + [UInt8(ascii: "\n")]
        _ = pong.withUnsafeBytes { Glibc.send(daemon, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(LoopbackBridge.lines(from: daemon, expected: 1).count == 1)
    }

    /// Before, unmasked frames and RSV1 frames were accepted, close codes 1005 and 999
    /// echoed, fragment errors closed with 1001. Fails on the earlier code: each is
    /// now a protocol error (1002), as RFC 6455 requires.
    @Test(arguments: [
        ("unmasked", frame(0x81, Array(#"{"type":"ping"}"#.utf8), masked: false)),
        ("RSV1", frame(0xC1, Array(#"{"type":"ping"}"#.utf8))),
        ("close 1005", frame(0x88, [0x03, 0xED])),
        ("close 999", frame(0x88, [0x03, 0xE7])),
        ("continuation first", frame(0x80, Array("x".utf8))),
    ])
    func protocolErrorsCloseWith1002(name: String, bytes: [UInt8]) throws {
        let bridge = try LoopbackBridge()
        let browser = try LoopbackClient(port: bridge.port)
        #expect(browser.upgrade(port: bridge.port).hasPrefix("HTTP/1.1 101"))
        browser.send(bytes)
        #expect(browser.closeCode() == 1002, "\(name)")
    }

    /// Before, ping frames were answered straight to the socket, outside the bounded
    /// queue: a client that never reads grew the bridge by every pong (2 M pings: 777 MiB).
    /// Now a client that does not read is not read from either (its pings wait in its own
    /// socket buffers, not in the bridge), and pongs go through the bounded queue. Fails on
    /// the earlier code, which read all 60 000 pings (7.9 MB) and held the pongs the kernel did not take.
    @Test func aClientThatDoesNotReadIsNotReadFrom() throws {
        let bridge = try LoopbackBridge()
        let browser = try LoopbackClient(port: bridge.port, receiveBuffer: 4096, sendTimeout: 2)
        #expect(browser.upgrade(port: bridge.port).hasPrefix("HTTP/1.1 101"))
        // 125-byte pings: their pongs fill the kernel's send buffer (4 MiB at most) within
        // the first 34 000, and only then does the bridge's own buffering show.
        let ping = frame(0x89, [UInt8](repeating: UInt8(ascii: "p"), count: 125))
        var sent = 0
        var batch: [UInt8] = []
        for _ in 0..<100 { batch += ping }
        while sent < 60_000, browser.send(batch) {  // stops when the bridge stops reading
            sent += 100
        }
        #expect(sent < 60_000, "the bridge read all \(sent) pings of a client that reads nothing")
        shutdown(browser.fd, Int32(SHUT_WR))
        var pongs = 0
        while let frame = browser.readFrame() {
            if frame.opcode == 0xA { pongs += 1 }
            if frame.opcode == 0x8 { break }
        }
        #expect(pongs <= sent + 100)
    }
}
