import GestureClient
#if canImport(Glibc)
import Glibc
#endif

/// One line from the server with the moment it was received (CLOCK_MONOTONIC µs, taken
/// right after the `recv` that completed it). Decoded only when asked (after a stream, not
/// while the driver is reading and stamping receipts).
struct Received {
    let line: [UInt8]
    let receivedAt: UInt64

    /// The typed message (GestureProtocol's decoder: what a real client gets); nil when the
    /// line is not a valid message.
    var message: ServerMessage? { try? WireDecoder.message(line) }

    var gesture: GestureMessage? {
        if case .gesture(let gesture)? = message { return gesture }
        return nil
    }

    var text: String { String(decoding: line, as: UTF8.self) }

    /// An event's `seq` and `time` (gesture, touch, device and activity lines); nil for replies and notices.
    var event: (seq: UInt64, time: Timestamp)? {
        switch message {
        case .gesture(let gesture)?: (gesture.seq, gesture.time)
        case .touch(let touch)?: (touch.seq, touch.time)
        case .device(let device)?: (device.seq, device.time)
        case .activity(let activity)?: (activity.seq, activity.time)
        case .hello?, .pong?, .status?, .error?, .overflow?, .goodbye?, .unknown?, nil: nil
        }
    }
}

/// A client of the daemon's socket, as any application would be, with blocking reads that
/// give up after a timeout (a missing event is a failure, not a hang). Messages received
/// but not yet consumed wait in `pending`; `history` keeps everything for diagnostics.
final class Subscriber {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// One receive buffer for the connection's life (allocating 64 KiB per recv made the
    /// driver, not the daemon, the bottleneck with 50 clients under emulation).
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private(set) var pending: [Received] = []
    private(set) var closed = false

    init(socketPath: String, receiveBuffer: Int32? = nil) throws(CaseFailure) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CaseFailure("socket: \(errorText(errno))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (i, byte) in socketPath.utf8.enumerated() { bytes[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw CaseFailure("connect \(socketPath): \(errorText(code))")
        }
    }

    deinit { close(fd) }

    /// Sends one request.
    func send(_ request: ClientRequest) throws(CaseFailure) {
        let bytes = WireEncoder.encode(request)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw CaseFailure("send to the daemon: \(errorText(errno))") }
    }

    /// Subscribes (nil: everything) and waits for the hello; returns it.
    @discardableResult
    func subscribe(gestures: [GestureKind]? = nil, devices: [String]? = nil, touches: Bool = false, timeout: Double = 20) throws(CaseFailure) -> HelloMessage {
        try send(.subscribe(SubscribeRequest(gestures: gestures, devices: devices, touches: touches)))
        let hello = try next("the hello", timeout: timeout) { if case .hello? = $0.message { true } else { false } }
        guard case .hello(let message)? = hello.message else { throw CaseFailure("no hello") }
        return message
    }

    /// Reads what is available within `timeout` seconds (at least one recv if readable).
    /// Returns false when nothing arrived.
    @discardableResult
    func receive(timeout: Double) -> Bool {
        guard !closed else { return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000)))
        guard ready > 0 else { return false }
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        let now = monotonicMicroseconds()
        if n <= 0 {
            if n == 0 || (errno != EAGAIN && errno != EINTR) { closed = true }
            return false
        }
        buffer += chunk[..<n]
        var start = 0
        while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
            pending.append(Received(line: Array(buffer[start..<newline]), receivedAt: now))
            start = newline + 1
        }
        buffer.removeSubrange(..<start)
        return true
    }

    /// Consumes messages up to and including the first one matching `predicate`; fails
    /// (listing what did arrive) after `timeout` seconds without it.
    @discardableResult
    func next(_ what: String, timeout: Double = 10, where predicate: (Received) -> Bool) throws(CaseFailure) -> Received {
        var skipped: [String] = []
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while true {
            while !pending.isEmpty {
                let message = pending.removeFirst()
                if predicate(message) { return message }
                skipped.append(summary(message))
            }
            let now = monotonicMicroseconds()
            if now >= deadline || closed {
                throw CaseFailure("no \(what) within \(Int(timeout)) s\(closed ? " (connection closed)" : ""); got [\(skipped.suffix(12).joined(separator: ", "))]")
            }
            receive(timeout: Double(deadline - now) / 1_000_000)
        }
    }

    /// Every gesture message up to and including the first matching `predicate`.
    @discardableResult
    func gestures(until what: String, timeout: Double = 10, where predicate: (GestureMessage) -> Bool) throws(CaseFailure) -> [GestureMessage] {
        var collected: [GestureMessage] = []
        try next(what, timeout: timeout) { received in
            guard let gesture = received.gesture else { return false }
            collected.append(gesture)
            return predicate(gesture)
        }
        return collected
    }

    /// Everything that arrives until the line has been quiet for `quiet` seconds.
    func drain(quiet: Double) -> [Received] {
        while receive(timeout: quiet) {}
        defer { pending.removeAll() }
        return pending
    }
}

/// One message in a few words, for failure messages.
func summary(_ received: Received) -> String {
    switch received.message {
    case .gesture(let g)?:
        var text = "\(g.gesture) \(g.phase) f\(g.fingers)"
        if let count = g.count { text += " c\(count)" }
        if let direction = g.direction { text += " \(direction)" }
        return text + " [\(g.device)]"
    case .device(let d)?: return "device \(d.phase) \(d.device)"
    case .activity(let a)?: return "activity \(a.phase)"
    case .touch(let t)?: return "touch \(t.phase)"
    case .hello?: return "hello"
    case .overflow(let dropped)?: return "overflow \(dropped)"
    case .goodbye(let reason)?: return "goodbye \(reason)"
    case .error(let message)?: return "error \(message)"
    case .pong?, .status?, .unknown?: return String(received.text.prefix(40))
    case nil: return "undecodable \(received.text.prefix(60))"
    }
}
