/// The one encoder of protocol 1: every message and request as one JSON line, fields in the
/// documented order (docs/protocol.md), numbers in fixed point with trailing zeros trimmed.
/// Appending to a buffer that has room allocates nothing: the daemon's event path and
/// `gestured replay` encode through it.
public enum WireEncoder {
    /// Fraction digits for normalised locations and translations (1e-5 of the screen:
    /// below a pixel on an 8K panel).
    public static let locationDigits = 5
    /// Fraction digits for velocities (normalised units per second).
    public static let velocityDigits = 4
    /// Fraction digits for pinch scale.
    public static let scaleDigits = 4
    /// Fraction digits for rotation in degrees.
    public static let angleDigits = 2

    /// Appends `message` as one line (ending in a newline) to `line`.
    public static func append(_ message: ServerMessage, to line: inout [UInt8]) {
        JSONWriter.append(to: &line) { writer in write(message, to: &writer) }
    }

    /// Appends `request` as one line (ending in a newline) to `line`.
    public static func append(_ request: ClientRequest, to line: inout [UInt8]) {
        JSONWriter.append(to: &line) { writer in write(request, to: &writer) }
    }

    /// `message` as one line, ending in a newline.
    public static func encode(_ message: ServerMessage) -> [UInt8] {
        var line: [UInt8] = []
        append(message, to: &line)
        return line
    }

    /// `request` as one line, ending in a newline.
    public static func encode(_ request: ClientRequest) -> [UInt8] {
        var line: [UInt8] = []
        append(request, to: &line)
        return line
    }

    // MARK: Server messages

    /// How an event line's `seq` is written: its number, or an empty slot filled in later
    /// (`EventLine`).
    enum Seq {
        case number(UInt64)
        case slot
    }

    static func write(_ message: ServerMessage, to w: inout JSONWriter) {
        switch message {
        case .hello(let hello):
            w.beginObject()
            w.key("type")
            w.raw("\"hello\"")
            w.key("protocol")
            w.integer(hello.protocol)
            w.key("server")
            w.string(hello.server)
            w.key("version")
            w.string(hello.version)
            w.key("devices")
            writeDevices(hello.devices, to: &w)
            w.endObject()
        case .gesture(let gesture):
            _ = writeGesture(gesture, seq: .number(gesture.seq), to: &w)
            return
        case .touch(let touch):
            _ = writeTouch(touch, seq: .number(touch.seq), to: &w)
            return
        case .device(let device):
            _ = writeDevice(device, seq: .number(device.seq), to: &w)
            return
        case .activity(let activity):
            _ = writeActivity(activity, seq: .number(activity.seq), to: &w)
            return
        case .pong(let time):
            w.beginObject()
            w.key("type")
            w.raw("\"pong\"")
            w.key("time")
            w.unsigned(time.microseconds)
            w.endObject()
        case .status(let status):
            w.beginObject()
            w.key("type")
            w.raw("\"status\"")
            w.key("protocol")
            w.integer(status.protocol)
            w.key("version")
            w.string(status.version)
            w.key("uptime")
            w.unsigned(status.uptime)
            w.key("lastTouch")
            if let lastTouch = status.lastTouch { w.unsigned(lastTouch.microseconds) } else { w.null() }
            w.key("devices")
            writeDevices(status.devices, to: &w)
            w.key("clients")
            w.integer(status.clients)
            w.key("maxClients")
            w.integer(status.maxClients)
            w.key("counters")
            w.beginObject()
            w.key("events")
            w.unsigned(status.counters.events)
            w.key("sent")
            w.unsigned(status.counters.sent)
            w.key("dropped")
            w.unsigned(status.counters.dropped)
            w.key("connections")
            w.unsigned(status.counters.connections)
            w.key("rejected")
            w.unsigned(status.counters.rejected)
            w.key("slowDisconnects")
            w.unsigned(status.counters.slowDisconnects)
            w.endObject()
            w.endObject()
        case .metrics(let metrics):
            writeMetrics(metrics, to: &w)
        case .error(let message):
            w.beginObject()
            w.key("type")
            w.raw("\"error\"")
            w.key("message")
            w.string(message)
            w.endObject()
        case .overflow(let dropped):
            w.beginObject()
            w.key("type")
            w.raw("\"overflow\"")
            w.key("dropped")
            w.unsigned(dropped)
            w.endObject()
        case .goodbye(let reason):
            w.beginObject()
            w.key("type")
            w.raw("\"goodbye\"")
            w.key("reason")
            w.string(reason)
            w.endObject()
        case .unknown(let type):
            w.beginObject()
            w.key("type")
            w.string(type)
            w.endObject()
        }
        w.endLine()
    }

    /// Writes a gesture line; returns the offset of its `seq` number (or slot).
    /// E.g. `{"type":"gesture","gesture":"tap","phase":"ended","id":3,"seq":3,"time":1000080000,"device":"ELAN Touchscreen","region":null,"fingers":1,"location":{"x":0.5,"y":0.5},"count":1}`.
    static func writeGesture(_ message: GestureMessage, seq: Seq, to w: inout JSONWriter) -> Int {
        w.beginObject()
        w.key("type")
        w.raw("\"gesture\"")
        w.key("gesture")
        w.raw(quoted(message.details.kind))
        w.key("phase")
        w.raw(quoted(message.phase))
        w.key("id")
        w.unsigned(message.id)
        let slot = writeSeq(seq, to: &w)
        w.key("time")
        w.unsigned(message.time.microseconds)
        w.key("device")
        w.string(message.device)
        w.key("region")
        w.optionalString(message.region)
        w.key("fingers")
        w.integer(message.fingers)
        w.key("location")
        w.point(message.location, digits: locationDigits)
        if let local = message.localLocation {
            w.key("localLocation")
            w.point(local, digits: locationDigits)
        }
        switch message.details {
        case .press, .longPress:
            break
        case .tap(let count):
            w.key("count")
            w.integer(count)
        case .drag(let drag):
            writeDrag(drag, to: &w)
        case .swipe(let direction, let edge, let drag):
            w.key("direction")
            w.raw(quoted(direction))
            w.key("edge")
            if let edge { w.raw(quoted(edge)) } else { w.null() }
            writeDrag(drag, to: &w)
        case .pinch(let scale):
            w.key("scale")
            w.number(scale, digits: scaleDigits)
        case .rotate(let degrees):
            w.key("rotation")
            w.number(degrees, digits: angleDigits)
        }
        w.endObject()
        w.endLine()
        return slot
    }

    private static func writeDrag(_ drag: GestureMessage.Drag, to w: inout JSONWriter) {
        w.key("startLocation")
        w.point(drag.startLocation, digits: locationDigits)
        if let local = drag.localStartLocation {
            w.key("localStartLocation")
            w.point(local, digits: locationDigits)
        }
        w.key("translation")
        w.point(drag.translation, digits: locationDigits)
        w.key("velocity")
        w.point(drag.velocity, digits: velocityDigits)
        w.key("predictedEndLocation")
        w.point(drag.predictedEndLocation, digits: locationDigits)
        w.key("predictedEndTranslation")
        w.point(drag.predictedEndTranslation, digits: locationDigits)
    }

    /// E.g. `{"type":"touch","phase":"moved","touch":4,"seq":9,"time":1000016000,"device":"ELAN Touchscreen","location":{"x":0.25,"y":0.5}}`.
    static func writeTouch(_ message: TouchMessage, seq: Seq, to w: inout JSONWriter) -> Int {
        w.beginObject()
        w.key("type")
        w.raw("\"touch\"")
        w.key("phase")
        w.raw(quoted(message.phase))
        w.key("touch")
        w.unsigned(message.touch)
        let slot = writeSeq(seq, to: &w)
        w.key("time")
        w.unsigned(message.time.microseconds)
        w.key("device")
        w.string(message.device)
        w.key("location")
        w.point(message.location, digits: locationDigits)
        w.endObject()
        w.endLine()
        return slot
    }

    /// E.g. `{"type":"device","phase":"added","seq":1,"time":5000,"device":"ELAN Touchscreen","kind":"touchscreen","path":"/dev/input/event5"}`.
    static func writeDevice(_ message: DeviceMessage, seq: Seq, to w: inout JSONWriter) -> Int {
        w.beginObject()
        w.key("type")
        w.raw("\"device\"")
        w.key("phase")
        w.raw(quoted(message.phase))
        let slot = writeSeq(seq, to: &w)
        w.key("time")
        w.unsigned(message.time.microseconds)
        w.key("device")
        w.string(message.device.name)
        w.key("kind")
        w.raw(quoted(message.device.kind))
        w.key("path")
        w.optionalString(message.device.path)
        w.endObject()
        w.endLine()
        return slot
    }

    /// E.g. `{"type":"activity","phase":"idle","seq":12,"time":61000000}`.
    static func writeActivity(_ message: ActivityMessage, seq: Seq, to w: inout JSONWriter) -> Int {
        w.beginObject()
        w.key("type")
        w.raw("\"activity\"")
        w.key("phase")
        w.raw(quoted(message.phase))
        let slot = writeSeq(seq, to: &w)
        w.key("time")
        w.unsigned(message.time.microseconds)
        w.endObject()
        w.endLine()
        return slot
    }

    /// E.g. `{"type":"metrics","uptime":42,"devices":[…],"clients":1,"dropped":0,"lastTouch":1746158656000000,"gestures":[{"device":"ELAN Touchscreen","region":null,"counts":[{"gesture":"tap","phase":"ended","count":2}]}],"inputs":[{"device":"ELAN Touchscreen","touches":2,"synDropped":0}],"latency":{"buckets":[{"le":100,"count":1},…],"count":2,"sum":180}}`.
    private static func writeMetrics(_ metrics: MetricsMessage, to w: inout JSONWriter) {
        w.beginObject()
        w.key("type")
        w.raw("\"metrics\"")
        w.key("uptime")
        w.unsigned(metrics.uptime)
        w.key("devices")
        writeDevices(metrics.devices, to: &w)
        w.key("clients")
        w.integer(metrics.clients)
        w.key("dropped")
        w.unsigned(metrics.dropped)
        w.key("lastTouch")
        if let lastTouch = metrics.lastTouch { w.unsigned(lastTouch) } else { w.null() }
        w.key("gestures")
        w.beginArray()
        for series in metrics.gestures {
            w.beginObject()
            w.key("device")
            w.string(series.device)
            w.key("region")
            w.optionalString(series.region)
            w.key("counts")
            w.beginArray()
            for count in series.counts {
                w.beginObject()
                w.key("gesture")
                w.raw(quoted(count.gesture))
                w.key("phase")
                w.raw(quoted(count.phase))
                w.key("count")
                w.unsigned(count.count)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.key("inputs")
        w.beginArray()
        for inputs in metrics.inputs {
            w.beginObject()
            w.key("device")
            w.string(inputs.device)
            w.key("touches")
            w.unsigned(inputs.touches)
            w.key("synDropped")
            w.unsigned(inputs.synDropped)
            if !inputs.filtered.isEmpty {
                w.key("filtered")
                w.beginObject()
                for filtered in inputs.filtered {
                    w.key(filtered.reason)
                    w.unsigned(filtered.count)
                }
                w.endObject()
            }
            w.endObject()
        }
        w.endArray()
        w.key("latency")
        w.beginObject()
        w.key("buckets")
        w.beginArray()
        for bucket in metrics.latency.buckets {
            w.beginObject()
            w.key("le")
            w.unsigned(bucket.le)
            w.key("count")
            w.unsigned(bucket.count)
            w.endObject()
        }
        w.endArray()
        w.key("count")
        w.unsigned(metrics.latency.count)
        w.key("sum")
        w.unsigned(metrics.latency.sum)
        w.endObject()
        w.endObject()
    }

    /// Writes `"seq":` and the number or the slot; returns where the number is (or goes).
    private static func writeSeq(_ seq: Seq, to w: inout JSONWriter) -> Int {
        w.key("seq")
        switch seq {
        case .number(let number):
            let offset = w.bytes.count
            w.unsigned(number)
            return offset
        case .slot:
            return w.slot()
        }
    }

    private static func writeDevices(_ devices: [DeviceInfo], to w: inout JSONWriter) {
        w.beginArray()
        for device in devices {
            w.beginObject()
            w.key("name")
            w.string(device.name)
            w.key("kind")
            w.raw(quoted(device.kind))
            w.key("path")
            w.optionalString(device.path)
            w.endObject()
        }
        w.endArray()
    }

    // MARK: Requests

    static func write(_ request: ClientRequest, to w: inout JSONWriter) {
        w.beginObject()
        switch request {
        case .ping:
            w.key("type")
            w.raw("\"ping\"")
        case .status:
            w.key("type")
            w.raw("\"status\"")
        case .metrics:
            w.key("type")
            w.raw("\"metrics\"")
        case .subscribe(let subscribe):
            w.key("type")
            w.raw("\"subscribe\"")
            if let gestures = subscribe.gestures {
                w.key("gestures")
                w.beginArray()
                for kind in gestures { w.raw(quoted(kind)) }
                w.endArray()
            }
            if let regions = subscribe.regions {
                w.key("regions")
                w.beginArray()
                for region in regions { w.optionalString(region) }
                w.endArray()
            }
            if let devices = subscribe.devices {
                w.key("devices")
                w.beginArray()
                for device in devices { w.string(device) }
                w.endArray()
            }
            w.key("touches")
            w.bool(subscribe.touches)
        }
        w.endObject()
        w.endLine()
    }

    // MARK: Wire names, quoted

    static func quoted(_ kind: GestureKind) -> StaticString {
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

    static func quoted(_ phase: GesturePhase) -> StaticString {
        switch phase {
        case .began: "\"began\""
        case .changed: "\"changed\""
        case .ended: "\"ended\""
        case .cancelled: "\"cancelled\""
        }
    }

    static func quoted(_ phase: TouchPhase) -> StaticString {
        switch phase {
        case .began: "\"began\""
        case .moved: "\"moved\""
        case .ended: "\"ended\""
        case .cancelled: "\"cancelled\""
        }
    }

    static func quoted(_ phase: ActivityPhase) -> StaticString {
        switch phase {
        case .idle: "\"idle\""
        case .active: "\"active\""
        }
    }

    static func quoted(_ phase: DevicePhase) -> StaticString {
        switch phase {
        case .added: "\"added\""
        case .removed: "\"removed\""
        }
    }

    static func quoted(_ kind: DeviceInfo.Kind) -> StaticString {
        switch kind {
        case .touchscreen: "\"touchscreen\""
        case .touchpad: "\"touchpad\""
        case .replay: "\"replay\""
        }
    }

    static func quoted(_ direction: SwipeDirection) -> StaticString {
        switch direction {
        case .left: "\"left\""
        case .right: "\"right\""
        case .up: "\"up\""
        case .down: "\"down\""
        }
    }

    static func quoted(_ edge: ScreenEdge) -> StaticString {
        switch edge {
        case .left: "\"left\""
        case .right: "\"right\""
        case .top: "\"top\""
        case .bottom: "\"bottom\""
        }
    }
}
