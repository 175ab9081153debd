import ConfigFile
import GestureCore
import NIOCore

/// What stands between the daemon and one browser that reads slower than events arrive: a
/// bounded queue, treated as the daemon treats a slow socket client (docs/protocol.md
/// "Limits and slow clients"). While the browser's connection takes data, lines pass
/// straight through; once it does not, they are held here. Past `capacity` held events the
/// oldest are dropped and the browser gets `{"type":"overflow","dropped":N}` before the
/// next event it reads (or, with `slow-client = "disconnect"`, a `goodbye` and the close).
/// Replies (`hello`, `pong`, `status`, `error`, notices) are never dropped; a browser that
/// leaves more than `replyLimit` bytes of them unread is closed.
///
/// Pure state: the caller tells it what happened and does what it answers.
struct DeliveryQueue<Line> {
    /// An event line (it carries `seq`: `gesture`, `touch`, `device`) may be dropped; a
    /// reply may not.
    enum Kind: Sendable {
        case event
        case reply
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
    }

    private struct HeldLine {
        var kind: Kind
        var line: Line
        var size: Int
    }

    private struct Held {
        var lines = CircularBuffer<HeldLine>()
        var events = 0
        var dropped = 0
        var replyBytes = 0
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
    let replyLimit: Int

    init(capacity: Int, policy: SlowClientPolicy, replyLimit: Int = DeliveryQueue.defaultReplyLimit) {
        self.capacity = capacity
        self.policy = policy
        self.replyLimit = replyLimit
    }

    /// Unread replies that close a browser, as the daemon does (1 MiB).
    static var defaultReplyLimit: Int { 1 << 20 }

    /// For log lines: `flowing`, `holding 12 (3 dropped)`, `closed`.
    var stateDescription: String {
        switch state {
        case .flowing: "flowing"
        case .holding(let held): "holding \(held.lines.count) (\(held.dropped) dropped)"
        case .closed: "closed"
        }
    }

    /// A line of `size` bytes arrived from the daemon; `writable` tells whether the browser's
    /// connection takes data now.
    mutating func arrived(_ line: Line, kind: Kind, size: Int, writable: Bool) -> Arrival {
        switch state {
        case .closed:
            return .held
        case .flowing:
            if writable {
                return .send(line)
            }
            var held = Held()
            return hold(HeldLine(kind: kind, line: line, size: size), in: &held)
        case .holding(var held):
            state = .flowing  // no copy of `held` stays in `state` while it is changed
            return hold(HeldLine(kind: kind, line: line, size: size), in: &held)
        }
    }

    /// The browser's connection takes data again: everything held, the overflow notice
    /// first. Afterwards lines pass straight through again.
    mutating func becameWritable() -> [Outgoing] {
        switch state {
        case .flowing, .closed:
            return []
        case .holding(let held):
            state = .flowing
            var outgoing: [Outgoing] = []
            outgoing.reserveCapacity(held.lines.count + 1)
            if held.dropped > 0 {
                outgoing.append(.overflow(dropped: held.dropped))
            }
            for entry in held.lines {
                outgoing.append(.line(entry.line))
            }
            return outgoing
        }
    }

    /// The connection is going: drop what is held.
    mutating func close() {
        state = .closed
    }

    private mutating func hold(_ entry: HeldLine, in held: inout Held) -> Arrival {
        held.lines.append(entry)
        switch entry.kind {
        case .event:
            held.events += 1
        case .reply:
            held.replyBytes += entry.size
        }
        if held.replyBytes > replyLimit {
            state = .closed
            return .disconnect(reason: "too slow: more than \(replyLimit) bytes of replies unread")
        }
        if held.events > capacity {
            switch policy {
            case .disconnect:
                state = .closed
                return .disconnect(reason: "too slow: \(held.events) events unread")
            case .dropOldest:
                if let oldest = held.lines.firstIndex(where: { $0.kind == .event }) {
                    held.lines.remove(at: oldest)
                    held.events -= 1
                    held.dropped += 1
                }
            }
        }
        state = .holding(held)
        return .held
    }
}
