import GestureProtocol

extension GestureMessage {
    /// The wire form of an engine event from `device`: the region-local points are
    /// computed from the event's region rectangle; `seq` is the connection's number (an
    /// `EventLine` leaves it open instead).
    public init(_ event: GestureEvent, device: String, seq: UInt64 = 0) {
        var details = event.details
        if let rect = event.regionRect {
            switch details {
            case .drag(var drag):
                drag.localStartLocation = rect.local(drag.startLocation)
                details = .drag(drag)
            case .swipe(let direction, let edge, var drag):
                drag.localStartLocation = rect.local(drag.startLocation)
                details = .swipe(direction: direction, edge: edge, drag: drag)
            case .press, .tap, .longPress, .pinch, .rotate:
                break
            }
        }
        self.init(
            phase: event.phase, id: event.id, seq: seq, time: event.time, device: device, region: event.region,
            fingers: event.fingers, location: event.location, localLocation: event.localLocation, details: details)
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
