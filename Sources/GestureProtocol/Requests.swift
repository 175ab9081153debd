/// Every request a client may send (docs/protocol.md, "Requests").
public enum ClientRequest: Sendable, Hashable {
    /// Replaces the connection's filters.
    case subscribe(SubscribeRequest)
    /// Asks for a `pong`.
    case ping
    /// Asks for a `status`.
    case status
    /// Asks for a `metrics` reply (the counters behind gestured-web's `/metrics`).
    case metrics
}

/// `{"type":"subscribe",…}`: which events the connection receives. A nil filter lets
/// everything through (on the wire: the field is absent, or `null`).
public struct SubscribeRequest: Sendable, Hashable {
    /// Gesture kinds.
    public var gestures: [GestureKind]?
    /// Region names; nil in the list means "outside every region".
    public var regions: [String?]?
    /// Device names; also filters `device` and `touch` lines.
    public var devices: [String]?
    /// Receive raw `touch` lines.
    public var touches: Bool

    public init(gestures: [GestureKind]? = nil, regions: [String?]? = nil, devices: [String]? = nil, touches: Bool = false) {
        self.gestures = gestures
        self.regions = regions
        self.devices = devices
        self.touches = touches
    }
}
