import GestureCore
import GestureProtocol

/// Which events one client receives: a client's `subscribe` request as sets. Nil means "all".
public struct Subscription: Sendable, Hashable {
    public var gestures: Set<GestureKind>? = nil
    /// Region names; `.some(nil)` in the set matches events outside every region.
    public var regions: Set<String?>? = nil
    public var devices: Set<String>? = nil
    /// Raw touch events (off unless asked for).
    public var touches = false

    public init() {}

    /// The filters of a `subscribe` request.
    public init(_ request: SubscribeRequest) {
        gestures = request.gestures.map(Set.init)
        regions = request.regions.map(Set.init)
        devices = request.devices.map(Set.init)
        touches = request.touches
    }

    func accepts(_ event: GestureEvent, device: String) -> Bool {
        if let gestures, !gestures.contains(event.kind) { return false }
        if let regions, !regions.contains(event.region) { return false }
        return accepts(device: device)
    }

    func accepts(device: String) -> Bool {
        devices?.contains(device) ?? true
    }
}
