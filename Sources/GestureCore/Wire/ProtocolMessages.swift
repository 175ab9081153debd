import GestureProtocol

extension GestureMessage {
    /// The wire form of an engine event from `device`: the region-local points are
    /// computed from the event's region rectangle; `seq` is the connection's number (an
    /// `EventLine` leaves it open instead).
    public init(_ event: GestureEvent, device: String, seq: UInt64 = 0) {
        let details: Details
        switch event.details {
        case .press:
            details = .press
        case .longPress:
            details = .longPress
        case .tap(let count):
            details = .tap(count: count)
        case .drag(let values):
            details = .drag(Drag(values, regionRect: event.regionRect))
        case .swipe(let direction, let edge, let values):
            details = .swipe(direction: direction, edge: edge, drag: Drag(values, regionRect: event.regionRect))
        case .pinch(let scale):
            details = .pinch(scale: scale)
        case .rotate(let degrees):
            details = .rotate(degrees: degrees)
        }
        self.init(
            phase: event.phase, id: event.id, seq: seq, time: event.time, device: device, region: event.region,
            fingers: event.fingers, location: event.location, localLocation: event.localLocation, details: details)
    }
}

extension GestureMessage.Drag {
    /// A drag's values on the wire; in a region, with the start point in its own space.
    init(_ values: DragValues, regionRect: Rect?) {
        self.init(
            startLocation: values.startLocation, localStartLocation: regionRect.map { $0.local(values.startLocation) },
            translation: values.translation, velocity: values.velocity,
            predictedEndLocation: values.predictedEndLocation, predictedEndTranslation: values.predictedEndTranslation)
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
