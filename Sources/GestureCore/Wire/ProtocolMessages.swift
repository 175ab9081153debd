import GestureProtocol

extension GestureMessage {
    /// The wire form of an engine event from `device`: the region-local points are
    /// computed from the event's region rectangle; `seq` is the connection's number (an
    /// `EventLine` leaves it open instead).
    public init(_ event: borrowing GestureEvent, device: String, seq: UInt64 = 0) {
        // Field by field, the details through `wireDetails`: no copy of the whole event.
        // `WireEncoder.append(_:device:seq:to:)` passes the same fields to the encoder.
        self.init(
            phase: event.phase, id: event.id, seq: seq, time: event.time, device: device, region: event.region,
            fingers: event.fingers, location: event.location, localLocation: Self.wireLocalLocation(event),
            details: Self.wireDetails(event.details, in: event.regionRect))
    }

    /// `event.location` in its region's rectangle (nil at the top level). No closure
    /// (`regionRect.map`): one that captures `event` copies it whole.
    @inline(__always)
    fileprivate static func wireLocalLocation(_ event: borrowing GestureEvent) -> Point? {
        guard let rect = event.regionRect else { return nil }
        return rect.local(event.location)
    }

    /// `details` with a drag's or swipe's `localStartLocation` in `rect` (when in a region).
    @inline(__always)
    fileprivate static func wireDetails(_ details: GestureDetails, in rect: Rect?) -> Details {
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

extension WireEncoder {
    /// Appends the gesture line of `event` from `device`, numbered `seq`, to `line`: the
    /// bytes `append(.gesture(GestureMessage(event, device: device, seq: seq)), to:)`
    /// writes, without that message built, wrapped and copied on the way (what
    /// `gestured replay` and the engine benchmark encode each event with).
    public static func append(_ event: borrowing GestureEvent, device: String, seq: UInt64, to line: inout [UInt8]) {
        appendGesture(
            phase: event.phase, id: event.id, seq: seq, time: event.time, device: device, region: event.region,
            fingers: event.fingers, location: event.location, localLocation: GestureMessage.wireLocalLocation(event),
            details: GestureMessage.wireDetails(event.details, in: event.regionRect), to: &line)
    }
}

extension EventLine {
    /// The gesture line of `event` from `device`, its `seq` left as the slot: the line
    /// `EventLine(GestureMessage(event, device: device))` is, without that message built
    /// first (what the daemon broadcasts each event as).
    public init(_ event: borrowing GestureEvent, device: String) {
        self.init(
            gesturePhase: event.phase, id: event.id, time: event.time, device: device, region: event.region,
            fingers: event.fingers, location: event.location, localLocation: GestureMessage.wireLocalLocation(event),
            details: GestureMessage.wireDetails(event.details, in: event.regionRect))
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
