/// How a server line is treated when its client reads slower than lines arrive
/// (docs/protocol.md "Limits and slow clients"). The one classification of the daemon's
/// and the web bridge's lines.
public enum DeliveryKind: Sendable, Hashable, CaseIterable {
    /// A line that carries `seq` (`gesture`, `touch`, `device`, `activity`): it may be
    /// dropped for a slow client, which is then told how many with an `overflow` notice.
    case event
    /// A line without `seq` that is never dropped (`hello`, `status`, `metrics`, `error`,
    /// `overflow`, `goodbye` and anything unknown): a client that leaves too many unread is
    /// disconnected.
    case reply
    /// The daemon's `pong`: never dropped, but coalesced: of the pongs a client has not
    /// read, only the latest is kept (a client that pings without reading holds one).
    case pong
    /// A transport's own pong (the web bridge's WebSocket pong frames): coalesced like
    /// `pong`, apart from it.
    case controlPong

    /// The message types whose lines carry `seq`.
    public static let eventTypes: Set<String> = ["gesture", "touch", "device", "activity"]

    /// The kind of a line of the protocol's `type`.
    public init(type: some StringProtocol) {
        if Self.eventTypes.contains(String(type)) {
            self = .event
        } else if type == "pong" {
            self = .pong
        } else {
            self = .reply
        }
    }

    /// The kind of an encoded server line, read from its `type`, which every server line
    /// writes first (`{"type":"…"`); a line that does not start so is a reply.
    public init(line: some Sequence<UInt8>) {
        var bytes = line.makeIterator()
        for expected in Self.typePrefix {
            guard bytes.next() == expected else {
                self = .reply
                return
            }
        }
        var name: [UInt8] = []
        while let byte = bytes.next(), byte != UInt8(ascii: "\""), name.count < Self.longestTypeName {
            name.append(byte)
        }
        self.init(type: String(decoding: name, as: UTF8.self))
    }

    private static let typePrefix = Array(#"{"type":""#.utf8)
    /// No message type is longer (`activity`, `overflow`); reading stops there.
    private static let longestTypeName = 16
}
