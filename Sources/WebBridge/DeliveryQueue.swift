import ConfigFile
import GestureCore
import NIOCore

/// What stands between the daemon and one browser that reads slower than events arrive: a
/// bounded queue, treated as the daemon treats a slow socket client (docs/protocol.md
/// "Limits and slow clients"). While the browser's connection takes data, lines pass
/// straight through; once it does not, they are held here.
///
/// Everything held counts against one byte budget (`byteLimit`): events, replies, the
/// latest `pong` and the latest WebSocket pong frame. Past `capacity` held events, or past
/// the budget, the oldest events are dropped and the browser gets
/// `{"type":"overflow","dropped":N}` before the next event it reads (or, with
/// `slow-client = "disconnect"`, a `goodbye` and the close). Replies (`hello`, `status`,
/// `error`, notices) are not dropped, but at most `replyLimit` of them are held: one more
/// closes the browser. Pongs are coalesced (only the latest is sent: a browser that pings
/// without reading holds one pong, not thousands), so events and replies are kept apart and
/// dropping the oldest event is O(1) however many replies wait.
///
/// Pure state: the caller tells it what happened and does what it answers.
struct DeliveryQueue<Line> {
    /// An event line (it carries `seq`: `gesture`, `touch`, `device`) may be dropped; a
    /// reply may not; of pongs (the daemon's `pong` lines and WebSocket pong frames) only
    /// the latest is kept.
    enum Kind: Sendable {
        case event
        case reply
        case pong
        case controlPong
    }

    /// What to do with a line that arrived from the daemon.
    enum Arrival {
        /// Write it to the browser now.
        case send(Line)
        /// It is held until the browser's connection takes data again.
        case held
        /// Send `goodbye` with this reason and close the browser's connection.
        case disconnect(reason: String)
    }

    /// What to write once the browser's connection takes data again, in order.
    enum Outgoing {
        case overflow(dropped: Int)
        case line(Line)
        /// A WebSocket pong frame's payload.
        case controlPong(Line)
    }

    private struct Entry {
        var order: Int
        var line: Line
        var size: Int
    }

    private struct Held {
        var events = CircularBuffer<Entry>()
        var replies = CircularBuffer<Entry>()
        var pong: Entry?
        var controlPong: Entry?
        var dropped = 0
        var bytes = 0
        var nextOrder = 0
    }

    private enum State {
        /// Nothing held: lines go straight to the browser.
        case flowing
        /// The browser's connection is full; lines wait here.
        case holding(Held)
        /// The browser is being disconnected; nothing more is sent.
        case closed
    }

    private var state = State.flowing
    let capacity: Int
    let policy: SlowClientPolicy
    let byteLimit: Int
    let replyLimit: Int

    init(
        capacity: Int, policy: SlowClientPolicy, byteLimit: Int = DeliveryQueue.defaultByteLimit,
        replyLimit: Int = DeliveryQueue.defaultReplyLimit
    ) {
        self.capacity = capacity
        self.policy = policy
        self.byteLimit = byteLimit
        self.replyLimit = replyLimit
    }

    /// The bytes held for one browser at most (`client-memory`, 1 MiB).
    static var defaultByteLimit: Int { 1 << 20 }

    /// Unread replies (pongs aside) that close a browser.
    static var defaultReplyLimit: Int { 64 }

    /// For log lines: `flowing`, `holding 12 (3 dropped)`, `closed`.
    var stateDescription: String {
        switch state {
        case .flowing: "flowing"
        case .holding(let held):
            "holding \(held.events.count + held.replies.count + (held.pong == nil ? 0 : 1) + (held.controlPong == nil ? 0 : 1)) (\(held.dropped) dropped)"
        case .closed: "closed"
        }
    }

    /// Whether a line that arrives now for a writable connection is sent at once (nothing
    /// is held): the caller copies a line out of its read buffer only when it will be held.
    var isFlowing: Bool {
        if case .flowing = state { return true }
        return false
    }

    /// The bytes held now (for the bridge's budget of all browsers together).
    var heldBytes: Int {
        if case .holding(let held) = state { return held.bytes }
        return 0
    }

    /// A line of `size` bytes arrived (from the daemon, or a pong the bridge answers
    /// itself); `writable` tells whether the browser's connection takes data now.
    mutating func arrived(_ line: Line, kind: Kind, size: Int, writable: Bool) -> Arrival {
        switch state {
        case .closed:
            return .held
        case .flowing:
            if writable {
                return .send(line)
            }
            var held = Held()
            return hold(line, kind: kind, size: size, in: &held)
        case .holding(var held):
            state = .flowing  // no copy of `held` stays in `state` while it is changed
            return hold(line, kind: kind, size: size, in: &held)
        }
    }

    /// The browser's connection takes data again: everything held in the order it came,
    /// the overflow notice first. Afterwards lines pass straight through again.
    mutating func becameWritable() -> [Outgoing] {
        switch state {
        case .flowing, .closed:
            return []
        case .holding(var held):
            state = .flowing
            var outgoing: [Outgoing] = []
            outgoing.reserveCapacity(held.events.count + held.replies.count + 3)
            if held.dropped > 0 {
                outgoing.append(.overflow(dropped: held.dropped))
            }
            // Merge the four sources by arrival order.
            while true {
                let candidates = [
                    held.events.first?.order, held.replies.first?.order, held.pong?.order, held.controlPong?.order,
                ]
                guard let next = candidates.enumerated().compactMap({ index, order in order.map { (index, $0) } }).min(by: { $0.1 < $1.1 })
                else { break }
                switch next.0 {
                case 0: outgoing.append(.line(held.events.removeFirst().line))
                case 1: outgoing.append(.line(held.replies.removeFirst().line))
                case 2:
                    outgoing.append(.line(held.pong!.line))
                    held.pong = nil
                default:
                    outgoing.append(.controlPong(held.controlPong!.line))
                    held.controlPong = nil
                }
            }
            return outgoing
        }
    }

    /// The connection is going: drop what is held.
    mutating func close() {
        state = .closed
    }

    private mutating func hold(_ line: Line, kind: Kind, size: Int, in held: inout Held) -> Arrival {
        let entry = Entry(order: held.nextOrder, line: line, size: size)
        held.nextOrder += 1
        held.bytes += size
        switch kind {
        case .event:
            held.events.append(entry)
        case .reply:
            held.replies.append(entry)
            if held.replies.count > replyLimit {
                state = .closed
                return .disconnect(reason: "too slow: more than \(replyLimit) replies unread")
            }
        case .pong:
            held.bytes -= held.pong?.size ?? 0
            held.pong = entry
        case .controlPong:
            held.bytes -= held.controlPong?.size ?? 0
            held.controlPong = entry
        }
        if held.events.count > capacity, policy == .disconnect {
            state = .closed
            return .disconnect(reason: "too slow: \(held.events.count) events unread")
        }
        while held.events.count > capacity || held.bytes > byteLimit {
            guard policy == .dropOldest, let oldest = held.events.popFirst() else {
                state = .closed
                return .disconnect(reason: "too slow: more than \(byteLimit) bytes unread")
            }
            held.bytes -= oldest.size
            held.dropped += 1
        }
        state = .holding(held)
        return .held
    }
}
