/// How a server treats a client that stops reading (docs/protocol.md "Limits and slow
/// clients"): `slow-client` in the daemon's and the web bridge's configuration.
public enum SlowClientPolicy: String, Sendable, Hashable, CaseIterable {
    /// Drop the oldest queued events and tell the client how many it lost.
    case dropOldest = "drop-oldest"
    /// Close the connection with a `goodbye` saying why.
    case disconnect
}
