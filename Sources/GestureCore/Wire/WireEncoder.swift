/// The wire format of protocol 1 (docs/protocol.md): one JSON object per line.
///
/// Shared by `gestured replay` and the daemon so that both print exactly the same lines.
public enum WireEncoder {
    /// The protocol version announced in `hello`.
    public static let protocolVersion = 1

    /// Fraction digits for normalised locations and translations (1e-5 of the screen:
    /// below a pixel on an 8K panel).
    public static let locationDigits = 5
    /// Fraction digits for velocities (normalised units per second).
    public static let velocityDigits = 4
    /// Fraction digits for pinch scale.
    public static let scaleDigits = 4
    /// Fraction digits for rotation in degrees.
    public static let angleDigits = 2

    /// Appends one gesture event line; an event of a region also carries `localLocation`
    /// (and `localStartLocation` after `startLocation`): the point in the region's own
    /// 0…1 space. E.g.
    /// `{"type":"gesture","gesture":"tap","phase":"ended","id":3,"seq":3,"time":1000080000,"device":"ELAN Touchscreen","region":null,"fingers":1,"location":{"x":0.5,"y":0.5},"count":1}`.
    public static func appendGesture(_ event: GestureEvent, seq: UInt64, device: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("type")
        writer.raw("\"gesture\"")
        writer.key("gesture")
        writer.raw(wireName(event.kind))
        writer.key("phase")
        writer.raw(wireName(event.phase))
        writer.key("id")
        writer.unsigned(event.id)
        writer.key("seq")
        writer.unsigned(seq)
        writer.key("time")
        writer.unsigned(event.time)
        writer.key("device")
        writer.string(device)
        writer.key("region")
        writer.optionalString(event.region)
        writer.key("fingers")
        writer.integer(event.fingers)
        writer.key("location")
        writer.point(event.location, digits: locationDigits)
        if let rect = event.regionRect {
            writer.key("localLocation")
            writer.point(rect.local(event.location), digits: locationDigits)
        }
        switch event.details {
        case .none:
            break
        case .tap(let count):
            writer.key("count")
            writer.integer(count)
        case .drag(let values):
            appendDragValues(values, regionRect: event.regionRect, to: &writer)
        case .swipe(let direction, let edge, let values):
            writer.key("direction")
            writer.raw(wireName(direction))
            writer.key("edge")
            if let edge { writer.raw(wireName(edge)) } else { writer.null() }
            appendDragValues(values, regionRect: event.regionRect, to: &writer)
        case .pinch(let scale):
            writer.key("scale")
            writer.number(scale, digits: scaleDigits)
        case .rotate(let degrees):
            writer.key("rotation")
            writer.number(degrees, digits: angleDigits)
        }
        writer.endObject()
        writer.endLine()
    }

    /// Whether a device arrived or went.
    public enum DevicePhase: Sendable, Hashable {
        case added, removed
    }

    /// Appends one device line, e.g.
    /// `{"type":"device","phase":"added","seq":1,"time":5000,"device":"ELAN Touchscreen","kind":"touchscreen","path":"/dev/input/event5"}`.
    public static func appendDevice(
        _ phase: DevicePhase, name: String, kind: String, path: String?, seq: UInt64, time: UInt64,
        to writer: inout JSONWriter
    ) {
        writer.beginObject()
        writer.key("type")
        writer.raw("\"device\"")
        writer.key("phase")
        switch phase {
        case .added: writer.raw("\"added\"")
        case .removed: writer.raw("\"removed\"")
        }
        writer.key("seq")
        writer.unsigned(seq)
        writer.key("time")
        writer.unsigned(time)
        writer.key("device")
        writer.string(name)
        writer.key("kind")
        writer.string(kind)
        writer.key("path")
        writer.optionalString(path)
        writer.endObject()
        writer.endLine()
    }

    /// Appends one raw touch line for one contact of a frame, e.g.
    /// `{"type":"touch","phase":"moved","touch":4,"seq":9,"time":1000016000,"device":"ELAN Touchscreen","location":{"x":0.25,"y":0.5}}`.
    public static func appendTouch(_ contact: Contact, time: UInt64, seq: UInt64, device: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("type")
        writer.raw("\"touch\"")
        writer.key("phase")
        writer.raw(wireName(contact.phase))
        writer.key("touch")
        writer.unsigned(UInt64(contact.id))
        writer.key("seq")
        writer.unsigned(seq)
        writer.key("time")
        writer.unsigned(time)
        writer.key("device")
        writer.string(device)
        writer.key("location")
        writer.point(contact.location, digits: locationDigits)
        writer.endObject()
        writer.endLine()
    }

    /// The quoted wire name of a contact phase.
    public static func wireName(_ phase: ContactPhase) -> StaticString {
        switch phase {
        case .began: "\"began\""
        case .moved: "\"moved\""
        case .ended: "\"ended\""
        case .cancelled: "\"cancelled\""
        }
    }

    private static func appendDragValues(_ values: DragValues, regionRect: Rect?, to writer: inout JSONWriter) {
        writer.key("startLocation")
        writer.point(values.startLocation, digits: locationDigits)
        if let regionRect {
            writer.key("localStartLocation")
            writer.point(regionRect.local(values.startLocation), digits: locationDigits)
        }
        writer.key("translation")
        writer.point(values.translation, digits: locationDigits)
        writer.key("velocity")
        writer.point(values.velocity, digits: velocityDigits)
        writer.key("predictedEndLocation")
        writer.point(values.predictedEndLocation, digits: locationDigits)
        writer.key("predictedEndTranslation")
        writer.point(values.predictedEndTranslation, digits: locationDigits)
    }

    /// The quoted wire name of a gesture kind.
    public static func wireName(_ kind: GestureKind) -> StaticString {
        switch kind {
        case .press: "\"press\""
        case .tap: "\"tap\""
        case .longPress: "\"long-press\""
        case .drag: "\"drag\""
        case .swipe: "\"swipe\""
        case .pinch: "\"pinch\""
        case .rotate: "\"rotate\""
        }
    }

    /// The quoted wire name of a phase.
    public static func wireName(_ phase: GesturePhase) -> StaticString {
        switch phase {
        case .began: "\"began\""
        case .changed: "\"changed\""
        case .ended: "\"ended\""
        case .cancelled: "\"cancelled\""
        }
    }

    private static func wireName(_ direction: SwipeDirection) -> StaticString {
        switch direction {
        case .left: "\"left\""
        case .right: "\"right\""
        case .up: "\"up\""
        case .down: "\"down\""
        }
    }

    private static func wireName(_ edge: ScreenEdge) -> StaticString {
        switch edge {
        case .left: "\"left\""
        case .right: "\"right\""
        case .top: "\"top\""
        case .bottom: "\"bottom\""
        }
    }
}
