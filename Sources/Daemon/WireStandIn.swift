import GestureCore

// STAND-IN: a minimal copy of the event-line format of design.md, until GestureCore's
// `WireEncoder` lands. The coordinator replaces the bodies of `WireEvents.appendGesture`
// and `WireEvents.appendDevice` with calls to `WireEncoder` and deletes this file's
// private encoder. Nothing else in the daemon encodes event lines.

/// The event lines the daemon broadcasts (each ends with `\n`).
enum WireEvents {
    /// `{"type":"gesture",...}` for one engine event.
    static func appendGesture(_ event: GestureEvent, seq: UInt64, device: String, to bytes: inout [UInt8]) {
        StandInEncoder.appendGesture(event, seq: seq, device: device, to: &bytes)
    }

    /// `{"type":"device","phase":"added"|"removed",...}`.
    static func appendDevice(_ device: DeviceInfo, added: Bool, time: UInt64, seq: UInt64, to bytes: inout [UInt8]) {
        JSONWriter.append(to: &bytes) { w in
            w.beginObject()
            w.key("type"); w.string("device")
            w.key("phase"); w.string(added ? "added" : "removed")
            w.key("seq"); w.integer(seq)
            w.key("time"); w.integer(time)
            w.key("device"); w.string(device.name)
            w.key("kind"); w.string(device.kind.rawValue)
            w.key("path"); w.optionalString(device.path)
            w.endObject()
            w.newline()
        }
    }

    /// `{"type":"touch",...}`: one raw contact of one frame (only for clients that asked).
    static func appendTouch(_ contact: Contact, time: UInt64, seq: UInt64, device: String, to bytes: inout [UInt8]) {
        JSONWriter.append(to: &bytes) { w in
            w.beginObject()
            w.key("type"); w.string("touch")
            w.key("phase"); w.string(contact.phase.wireName)
            w.key("touch"); w.integer(contact.id)
            w.key("seq"); w.integer(seq)
            w.key("time"); w.integer(time)
            w.key("device"); w.string(device)
            w.key("location"); w.point(contact.location)
            w.endObject()
            w.newline()
        }
    }
}

extension ContactPhase {
    var wireName: String {
        switch self {
        case .began: "began"
        case .moved: "moved"
        case .ended: "ended"
        case .cancelled: "cancelled"
        }
    }
}

// STAND-IN (to delete when WireEncoder lands).
private enum StandInEncoder {
    static func appendGesture(_ e: GestureEvent, seq: UInt64, device: String, to bytes: inout [UInt8]) {
        JSONWriter.append(to: &bytes) { w in
            w.beginObject()
            w.key("type"); w.string("gesture")
            w.key("gesture"); w.string(e.kind.rawValue)
            w.key("phase"); w.string(e.phase.rawValue)
            w.key("id"); w.integer(e.id)
            w.key("seq"); w.integer(seq)
            w.key("time"); w.integer(e.time)
            w.key("device"); w.string(device)
            w.key("region"); w.optionalString(e.region)
            w.key("fingers"); w.integer(e.fingers)
            w.key("location"); w.point(e.location)
            switch e.details {
            case .none:
                break
            case .tap(let count):
                w.key("count"); w.integer(count)
            case .drag(let drag):
                appendDrag(drag, to: &w)
            case .swipe(let direction, let edge, let drag):
                w.key("direction"); w.string(direction.rawValue)
                w.key("edge"); w.optionalString(edge?.rawValue)
                appendDrag(drag, to: &w)
            case .pinch(let scale):
                w.key("scale"); w.number(scale)
            case .rotate(let degrees):
                w.key("rotation"); w.number(degrees)
        }
        w.endObject()
        w.newline()
        }
    }

    private static func appendDrag(_ d: DragValues, to w: inout JSONWriter) {
        w.key("startLocation"); w.point(d.startLocation)
        w.key("translation"); w.point(d.translation)
        w.key("velocity"); w.point(d.velocity)
        w.key("predictedEndLocation"); w.point(d.predictedEndLocation)
        w.key("predictedEndTranslation"); w.point(d.predictedEndTranslation)
    }
}
