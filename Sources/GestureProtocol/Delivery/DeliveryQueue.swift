/// The limits of one connection's `DeliveryQueue`.
public struct DeliveryLimits: Sendable, Hashable {
    /// Events held at most (`client-queue`).
    public var events: Int
    /// Bytes held at most, events, replies and pongs together: past them the oldest events
    /// are dropped, and when only replies are left the connection is closed.
    public var bytes: Int
    /// Unread replies (pongs aside) held at most: one more closes the connection.
    public var replies: Int
    /// What happens to a connection whose events no longer fit.
    public var policy: SlowClientPolicy

    /// The bytes one connection may hold (docs/protocol.md "Limits and slow clients"): the
    /// daemon's limit for every client, the web bridge's default `client-memory`.
    public static let connectionBytes = 1 << 20

    public init(events: Int, policy: SlowClientPolicy, bytes: Int = DeliveryLimits.connectionBytes, replies: Int = .max) {
        self.events = max(1, events)
        self.policy = policy
        self.bytes = bytes
        self.replies = replies
    }
}

/// What stands between a server and one client that reads slower than lines arrive: the
/// slow-client rules of docs/protocol.md "Limits and slow clients", once, for the daemon's
/// socket clients and the web bridge's browsers.
///
/// While the connection takes data and nothing is held, a line passes straight through
/// (`Arrival.send`); otherwise it is held here, in arrival order. Lines are classed by
/// `DeliveryKind`: events may be dropped, replies may not (too many unread close the
/// connection), pongs are coalesced (only the latest is kept). Past `DeliveryLimits.events`
/// held events, past `DeliveryLimits.bytes` held bytes, or when the caller says the
/// connection holds more than its share of a budget shared with other connections
/// (`overShare`), `drop-oldest` drops the oldest events and `next()` then hands out an
/// `overflow` notice before anything else; `disconnect` closes the connection.
///
/// Pure state, no I/O, generic over the line (encoded bytes, a `ByteBuffer`, a line whose
/// `seq` is filled in when it is written): the caller tells it what happened and carries
/// out what it answers, as swift-nio's state machines do. Events and replies wait in
/// separate rings so that dropping the oldest event is O(1) however many replies wait.
///
/// Inlinable, so that the daemon and the bridge, which consult it for every line, get it
/// specialized for their line type: called unspecialized across the module boundary, every
/// call instantiated the generic metadata of its state at run time (docs/performance.md
/// "The loop around the encoder": a third of the daemon's instructions per frame).
public struct DeliveryQueue<Line> {
    /// What to do with a line that arrived.
    public enum Arrival {
        /// Write it to the connection now (nothing was held and it takes data).
        case send(Line)
        /// It is held; `dropping` older events were dropped to make room for it.
        case held(dropping: Int)
        /// The event itself was dropped (nothing older was left to drop), after `older` older
        /// ones; the next `overflow` notice counts it.
        case dropped(older: Int)
        /// Say `goodbye` with this reason (best effort) and close the connection.
        case disconnect(reason: String)
        /// The connection is closing: nothing more is written to it.
        case ignored
    }

    /// What to write next, once the connection takes data again.
    public enum Outgoing {
        /// `{"type":"overflow","dropped":N}`: events were dropped since the last notice.
        case overflow(dropped: UInt64)
        /// A held line, with its kind.
        case line(Line, DeliveryKind)
    }

    @usableFromInline
    struct Entry {
        @usableFromInline var order: UInt64
        @usableFromInline var line: Line
        @usableFromInline var size: Int

        @inlinable
        init(order: UInt64, line: Line, size: Int) {
            self.order = order
            self.line = line
            self.size = size
        }
    }

    @usableFromInline
    struct Held {
        @usableFromInline var events: BoundedQueue<Entry>
        @usableFromInline var replies = BoundedQueue<Entry>(capacity: .max)
        @usableFromInline var pong: Entry?
        @usableFromInline var controlPong: Entry?
        /// Events dropped since the last overflow notice.
        @usableFromInline var dropped: UInt64 = 0
        @usableFromInline var bytes = 0
        @usableFromInline var nextOrder: UInt64 = 0

        @inlinable
        init(events: BoundedQueue<Entry>) {
            self.events = events
        }

        @inlinable
        var isEmpty: Bool { events.isEmpty && replies.isEmpty && pong == nil && controlPong == nil && dropped == 0 }
    }

    @usableFromInline
    enum State {
        /// Nothing held: lines go straight to the connection while it takes data.
        case flowing
        /// Lines wait here until the connection takes data.
        case holding(Held)
        /// The connection is being closed; nothing more is written.
        case closed
    }

    @usableFromInline var state = State.flowing
    /// The limits it applies.
    public let limits: DeliveryLimits

    /// An empty queue applying `limits`.
    @inlinable
    public init(limits: DeliveryLimits) {
        self.limits = limits
    }

    /// Whether nothing is held: a line that arrives for a connection that takes data is
    /// sent at once (a caller copies a line out of its read buffer only when it is held).
    @inlinable
    public var isFlowing: Bool {
        if case .flowing = state { return true }
        return false
    }

    /// Whether the connection was closed (`disconnect` was answered, or `close()`).
    @inlinable
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// The bytes held now (0 once closed: the caller's budget gets them back).
    @inlinable
    public var heldBytes: Int {
        if case .holding(let held) = state { return held.bytes }
        return 0
    }

    /// The events held now.
    @inlinable
    public var heldEvents: Int {
        if case .holding(let held) = state { return held.events.count }
        return 0
    }

    /// Whether an event arriving now would not fit: `limits.events` are held, or the
    /// connection is over its share of a shared budget. A caller that can make room by
    /// writing first (its socket may take more now) does so before the event arrives.
    @inlinable
    public func isFull(overShare: Bool = false) -> Bool {
        overShare || heldEvents >= limits.events
    }

    /// For log lines: `flowing`, `holding 12 (3 dropped)`, `closed`.
    public var stateDescription: String {
        switch state {
        case .flowing: "flowing"
        case .holding(let held):
            "holding \(held.events.count + held.replies.count + (held.pong == nil ? 0 : 1) + (held.controlPong == nil ? 0 : 1)) (\(held.dropped) dropped)"
        case .closed: "closed"
        }
    }

    /// A line of `size` bytes arrived. `writable`: the connection takes data now.
    /// `overShare`: the caller's budget shared by every connection is exceeded and this one
    /// holds more than its share: an event then counts as arriving at a full queue, and a
    /// reply for a connection that does not take data closes it.
    @inlinable
    public mutating func arrived(_ line: Line, kind: DeliveryKind, size: Int, writable: Bool, overShare: Bool = false) -> Arrival {
        switch state {
        case .closed:
            return .ignored
        case .flowing:
            if writable && !(overShare && kind == .event) {
                return .send(line)
            }
            var held = Held(events: BoundedQueue(capacity: limits.events + 1))
            return hold(line, kind: kind, size: size, writable: writable, overShare: overShare, in: &held)
        case .holding(var held):
            state = .flowing  // no second reference to `held`'s storage while it changes
            return hold(line, kind: kind, size: size, writable: writable, overShare: overShare, in: &held)
        }
    }

    /// The next line to write, oldest first, the overflow notice before anything else;
    /// nil when nothing is held (lines then pass straight through again).
    @inlinable
    public mutating func next() -> Outgoing? {
        guard case .holding(var held) = state else { return nil }
        state = .flowing
        let outgoing = take(from: &held)
        if !held.isEmpty {
            state = .holding(held)
        }
        return outgoing
    }

    /// The connection takes data again: everything held, in order (`next()` until nil).
    @inlinable
    public mutating func becameWritable() -> [Outgoing] {
        var outgoing: [Outgoing] = []
        outgoing.reserveCapacity(heldEvents + 4)
        while let item = next() {
            outgoing.append(item)
        }
        return outgoing
    }

    /// The connection is going: what is held is dropped.
    @inlinable
    public mutating func close() {
        state = .closed
    }

    @inlinable
    func take(from held: inout Held) -> Outgoing? {
        if held.dropped > 0 {
            defer { held.dropped = 0 }
            return .overflow(dropped: held.dropped)
        }
        // The oldest of the four sources (no array: this runs once per line written).
        var kind: DeliveryKind?
        var order = UInt64.max
        func consider(_ candidate: DeliveryKind, _ entry: Entry?) {
            if let entry, entry.order < order {
                kind = candidate
                order = entry.order
            }
        }
        consider(.event, held.events.first)
        consider(.reply, held.replies.first)
        consider(.pong, held.pong)
        consider(.controlPong, held.controlPong)
        let entry: Entry
        switch kind {
        case nil: return nil
        case .event?: entry = held.events.popFirst()!
        case .reply?: entry = held.replies.popFirst()!
        case .pong?:
            entry = held.pong!
            held.pong = nil
        case .controlPong?:
            entry = held.controlPong!
            held.controlPong = nil
        }
        held.bytes -= entry.size
        return .line(entry.line, kind!)
    }

    @inlinable
    mutating func hold(_ line: Line, kind: DeliveryKind, size: Int, writable: Bool, overShare: Bool, in held: inout Held) -> Arrival {
        let entry = Entry(order: held.nextOrder, line: line, size: size)
        held.nextOrder += 1
        held.bytes += size
        var full = false
        switch kind {
        case .event:
            full = overShare || held.events.count >= limits.events
            if full, limits.policy == .disconnect {
                return disconnect("too slow: \(held.events.count) events unread")
            }
            held.events.append(entry)
        case .reply:
            if overShare && !writable {
                return disconnect("too slow: replies unread past the memory budget")
            }
            held.replies.append(entry)
            if held.replies.count > limits.replies {
                return disconnect("too slow: more than \(limits.replies) replies unread")
            }
        case .pong:
            held.bytes -= held.pong?.size ?? 0
            held.pong = entry
        case .controlPong:
            held.bytes -= held.controlPong?.size ?? 0
            held.controlPong = entry
        }
        var dropping = 0
        var droppedItself = false
        while full || held.bytes > limits.bytes {
            full = false
            guard limits.policy == .dropOldest, let oldest = held.events.popFirst() else {
                return disconnect("too slow: more than \(limits.bytes) bytes unread")
            }
            held.bytes -= oldest.size
            held.dropped += 1
            if oldest.order == entry.order {
                droppedItself = true
            } else {
                dropping += 1
            }
        }
        state = .holding(held)
        return droppedItself ? .dropped(older: dropping) : .held(dropping: dropping)
    }

    @inlinable
    mutating func disconnect(_ reason: String) -> Arrival {
        state = .closed
        return .disconnect(reason: reason)
    }
}
