import GestureProtocol

extension GestureMessage {
    /// The wire form of an engine event from `device`: the region-local points are
    /// computed from the event's region rectangle; `seq` is the connection's number (an
    /// `EventLine` leaves it open instead). The one route from an engine event to its wire
    /// line: the daemon encodes it as `EventLine(GestureMessage(event, device:))`, `gestured
    /// replay` and the engine benchmark as `WireEncoder.append(GestureMessage(…), to:)`.
    public init(_ event: borrowing GestureEvent, device: String, seq: UInt64 = 0) {
        // Field by field, the details through `wireDetails`: no copy of the whole event.
        self.init(
            phase: event.phase, id: event.id, seq: seq, time: event.time, device: device, region: event.region,
            fingers: event.fingers, location: event.location, localLocation: Self.wireLocalLocation(event),
            details: Self.wireDetails(event.details, in: event.regionRect))
    }

    /// `event.location` in its region's rectangle (nil at the top level). No closure
    /// (`regionRect.map`): one that captures `event` copies it whole.
    @inline(__always)
    private static func wireLocalLocation(_ event: borrowing GestureEvent) -> Point? {
        guard let rect = event.regionRect else { return nil }
        return rect.local(event.location)
    }

    /// `details` with a drag's or swipe's `localStartLocation` in `rect` (when in a region).
    @inline(__always)
    private static func wireDetails(_ details: GestureDetails, in rect: Rect?) -> Details {
        guard let rect else { return details }
        switch details {
        case .drag(var drag):
            drag.localStartLocation = rect.local(drag.startLocation)
            return .drag(drag)
        case .swipe(let direction, let edge, var drag):
            drag.localStartLocation = rect.local(drag.startLocation)
            return .swipe(direction: direction, edge: edge, drag: drag)
        case .press, .tap, .longPress, .pinch, .rotate:
            return details
        }
    }
}

extension TouchMessage {
    /// The wire form of one contact of a frame at `time` from `device`.
    public init(_ contact: Contact, time: Timestamp, device: String, seq: UInt64 = 0) {
        self.init(
            phase: contact.phase, touch: UInt64(contact.id), seq: seq, time: time, device: device,
            location: contact.location)
    }
}
