import GestureClient
import GestureTestSupport
import SystemCalls
import SystemPackage

/// One line from the server with the moment it was received (CLOCK_MONOTONIC µs, taken
/// right after the `recv` that completed it). Decoded only when asked (after a stream, not
/// while the driver is reading and stamping receipts).
struct Received {
    let line: [UInt8]
    let receivedAt: UInt64

    /// The typed message (GestureProtocol's decoder: what a real client gets); nil when the
    /// line is not a valid message.
    var message: ServerMessage? { try? WireDecoder.message(line) }

    var gesture: GestureMessage? { message?.gesture }

    var text: String { String(decoding: line, as: UTF8.self) }

    /// An event's `seq` and `time` (gesture, touch, device and activity lines); nil for replies and notices.
    var event: (seq: UInt64, time: Timestamp)? { message?.event }
}

/// A client of the daemon's socket, as any application would be, with blocking reads that
/// give up after a timeout (a missing event is a failure, not a hang). Messages received
/// but not yet consumed wait in `pending`; `history` keeps everything for diagnostics.
final class Subscriber {
    private let client: LineClient
    private(set) var pending: [Received] = []
    var closed: Bool { client.reader.isClosed }
    var socket: FileDescriptor { client.socket }

    init(socketPath: String, receiveBuffer: Int32? = nil) throws(CaseFailure) {
        do {
            client = try LineClient(path: socketPath, receiveBuffer: receiveBuffer)
        } catch {
            throw CaseFailure("connect \(socketPath): \(error)")
        }
    }

    /// Sends one request (GestureProtocol's encoder).
    func send(_ request: ClientRequest) throws(CaseFailure) {
        do {
            try client.send(WireEncoder.encode(request))
        } catch {
            throw CaseFailure("send to the daemon: \(error)")
        }
    }

    /// Subscribes (nil: everything) and waits for the hello; returns it.
    @discardableResult
    func subscribe(gestures: [GestureKind]? = nil, devices: [String]? = nil, touches: Bool = false, timeout: Double = 20)
        throws(CaseFailure) -> HelloMessage
    {
        try send(.subscribe(SubscribeRequest(gestures: gestures, devices: devices, touches: touches)))
        let hello = try next("the hello", timeout: timeout) { if case .hello? = $0.message { true } else { false } }
        guard case .hello(let message)? = hello.message else { throw CaseFailure("no hello") }
        return message
    }

    /// Reads what is available within `timeout` seconds (at least one read if readable).
    /// Returns false when nothing arrived.
    @discardableResult
    func receive(timeout: Double) -> Bool {
        guard let lines = client.reader.receive(timeout: Int32(max(0, timeout * 1000))) else { return false }
        pending += lines.map { Received(line: $0.bytes, receivedAt: $0.receivedAt) }
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
                throw CaseFailure(
                    "no \(what) within \(Int(timeout)) s\(closed ? " (connection closed)" : ""); got [\(skipped.suffix(12).joined(separator: ", "))]"
                )
            }
            receive(timeout: Double(deadline - now) / 1_000_000)
        }
    }

    /// Every gesture message up to and including the first matching `predicate`.
    @discardableResult
    func gestures(until what: String, timeout: Double = 10, where predicate: (GestureMessage) -> Bool) throws(CaseFailure)
        -> [GestureMessage]
    {
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
    case .pong?, .status?, .metrics?, .unknown?: return String(received.text.prefix(40))
    case nil: return "undecodable \(received.text.prefix(60))"
    }
}
