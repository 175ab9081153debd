/// The one strict decoder of protocol 1: a line (with or without its newline) into a typed
/// message or request, or a `ProtocolError` naming the problem, the field and the byte.
///
/// Server messages: unknown fields are ignored (later versions add fields, docs/protocol.md
/// "Transport"), a type this decoder does not know is `.unknown`, every documented field
/// must be present with its documented JSON type. Requests: unknown types and unknown
/// fields are refused, so a misspelt option is an error rather than silently ignored.
public enum WireDecoder {
    /// Arrays and objects nested deeper than this are refused (a hostile line of 64 KiB of
    /// `[` must not exhaust the stack).
    public static let maximumDepth = 64

    /// Decodes one line from the daemon.
    public static func message<Line: Collection<UInt8>>(_ line: Line) throws(ProtocolError) -> ServerMessage {
        try withBuffer(line) { buffer throws(ProtocolError) in
            var reader = JSONReader(buffer, isRequest: false)
            return try reader.message()
        }
    }

    /// Decodes one line from a client.
    public static func request<Line: Collection<UInt8>>(_ line: Line) throws(ProtocolError) -> ClientRequest {
        try withBuffer(line) { buffer throws(ProtocolError) in
            var reader = JSONReader(buffer, isRequest: true)
            return try reader.request()
        }
    }

    private static func withBuffer<Line: Collection<UInt8>, Result>(
        _ line: Line, _ body: (UnsafeBufferPointer<UInt8>) throws(ProtocolError) -> Result
    ) throws(ProtocolError) -> Result {
        let outcome = line.withContiguousStorageIfAvailable { buffer in
            Swift.Result { () throws(ProtocolError) in try body(buffer) }
        }
        if let outcome { return try outcome.get() }
        return try Array(line).withUnsafeBufferPointer { buffer in
            Swift.Result { () throws(ProtocolError) in try body(buffer) }
        }.get()
    }
}

extension JSONReader {
    // MARK: Requests

    mutating func request() throws(ProtocolError) -> ClientRequest {
        guard let found = try validate() else { throw error(.missingType, at: 0) }
        let name = found.type
        type = name
        switch name {
        case "ping":
            try refuseFields()
            return .ping
        case "status":
            try refuseFields()
            return .status
        case "metrics":
            try refuseFields()
            return .metrics
        case "subscribe":
            return .subscribe(try subscribe())
        default:
            type = nil
            throw error(.unknownRequestType(name), field: "type", at: found.offset)
        }
    }

    /// A request without fields of its own: anything but `type` is an error.
    private mutating func refuseFields() throws(ProtocolError) {
        var members = try beginObject()
        while let key = try nextKey(&members) {
            guard "type" ~= key else { throw error(.unknownField, field: key.text, at: key.offset) }
            try skip()
        }
    }

    private mutating func subscribe() throws(ProtocolError) -> SubscribeRequest {
        var request = SubscribeRequest()
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "type":
                try skip()
            case "gestures":
                request.gestures = try list("gestures", expected: "an array of strings") { reader throws(ProtocolError) in
                    guard reader.peek() == .string else { throw reader.wrongType("gestures", "an array of strings") }
                    return try reader.name(GestureKind.self, field: "gestures", what: "gesture")
                }
            case "regions":
                let expected = "an array of strings (null: outside every region)"
                request.regions = try list("regions", expected: expected) { reader throws(ProtocolError) -> String? in
                    if try reader.null() { return nil }
                    guard reader.peek() == .string else { throw reader.wrongType("regions", expected) }
                    return try reader.string(field: "regions")
                }
            case "devices":
                request.devices = try list("devices", expected: "an array of strings") { reader throws(ProtocolError) in
                    guard reader.peek() == .string else { throw reader.wrongType("devices", "an array of strings") }
                    return try reader.string(field: "devices")
                }
            case "touches":
                request.touches = try null() ? false : try bool(field: "touches")
            default:
                throw error(.unknownField, field: key.text, at: key.offset)
            }
        }
        return request
    }

    /// An array whose elements `element` reads, or nil for `null`.
    private mutating func list<Element>(
        _ field: String, expected: String, _ element: (inout JSONReader) throws(ProtocolError) -> Element
    ) throws(ProtocolError) -> [Element]? {
        if try null() { return nil }
        guard peek() == .array else { throw wrongType(field, expected) }
        var result: [Element] = []
        var elements = try beginArray()
        while try nextElement(&elements) {
            result.append(try element(&self))
        }
        return result
    }

    // MARK: Server messages

    mutating func message() throws(ProtocolError) -> ServerMessage {
        guard let name = try validate()?.type else { throw error(.missingType, at: 0) }
        type = name
        switch name {
        case "hello": return .hello(try hello())
        case "gesture": return .gesture(try gesture())
        case "touch": return .touch(try touch())
        case "device": return .device(try device())
        case "activity": return .activity(try activity())
        case "pong":
            return .pong(time: Timestamp(microseconds: try single("time") { r throws(ProtocolError) in try r.unsigned(field: "time") }))
        case "status": return .status(try status())
        case "metrics": return .metrics(try metrics())
        case "error": return .error(message: try single("message") { r throws(ProtocolError) in try r.string(field: "message") })
        case "overflow": return .overflow(dropped: try single("dropped") { r throws(ProtocolError) in try r.unsigned(field: "dropped") })
        case "goodbye": return .goodbye(reason: try single("reason") { r throws(ProtocolError) in try r.string(field: "reason") })
        default: return .unknown(type: name)
        }
    }

    /// A message with one field besides `type` (others ignored).
    private mutating func single<Value>(_ field: StaticString, _ read: (inout JSONReader) throws(ProtocolError) -> Value)
        throws(ProtocolError) -> Value
    {
        var value: Value?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            if field ~= key { value = try read(&self) } else { try skip() }
        }
        return try required(value, "\(field)", members)
    }

    private func required<Value>(_ value: Value?, _ field: String, _ members: Members) throws(ProtocolError) -> Value {
        guard let value else { throw error(.missingField, field: field, at: members.start) }
        return value
    }

    private mutating func timestamp(field: String) throws(ProtocolError) -> Timestamp {
        Timestamp(microseconds: try unsigned(field: field))
    }

    /// `{"x":…,"y":…}`.
    private mutating func point(field: String) throws(ProtocolError) -> Point {
        guard peek() == .object else { throw wrongType(field, "an object {\"x\":…,\"y\":…}") }
        var x: Double?
        var y: Double?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "x": x = try double(field: field + ".x")
            case "y": y = try double(field: field + ".y")
            default: try skip()
            }
        }
        return Point(x: try required(x, field + ".x", members), y: try required(y, field + ".y", members))
    }

    private mutating func optionalPoint(field: String) throws(ProtocolError) -> Point? {
        try null() ? nil : try point(field: field)
    }

    private mutating func deviceInfo() throws(ProtocolError) -> DeviceInfo {
        guard peek() == .object else { throw wrongType("devices", "an array of objects {\"name\",\"kind\",\"path\"}") }
        var name: String?
        var kind: DeviceInfo.Kind?
        var path: String??
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "name": name = try string(field: "devices.name")
            case "kind": kind = try self.name(DeviceInfo.Kind.self, field: "devices.kind", what: "device kind")
            case "path": path = .some(try optionalString(field: "devices.path"))
            default: try skip()
            }
        }
        return DeviceInfo(
            name: try required(name, "devices.name", members), kind: try required(kind, "devices.kind", members),
            path: try required(path, "devices.path", members))
    }

    private mutating func devices() throws(ProtocolError) -> [DeviceInfo] {
        try list("devices", expected: "an array of objects {\"name\",\"kind\",\"path\"}") { reader throws(ProtocolError) in
            try reader.deviceInfo()
        } ?? []
    }

    private mutating func hello() throws(ProtocolError) -> HelloMessage {
        var version: Int?
        var server: String?
        var release: String?
        var devices: [DeviceInfo]?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "protocol": version = try integer(field: "protocol")
            case "server": server = try string(field: "server")
            case "version": release = try string(field: "version")
            case "devices": devices = try self.devices()
            default: try skip()
            }
        }
        return HelloMessage(
            protocol: try required(version, "protocol", members), server: try required(server, "server", members),
            version: try required(release, "version", members), devices: try required(devices, "devices", members))
    }

    private mutating func status() throws(ProtocolError) -> StatusMessage {
        var version: Int?
        var release: String?
        var uptime: UInt64?
        var lastTouch: Timestamp??
        var devices: [DeviceInfo]?
        var clients: Int?
        var maxClients: Int?
        var counters: StatusMessage.Counters?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "protocol": version = try integer(field: "protocol")
            case "version": release = try string(field: "version")
            case "uptime": uptime = try unsigned(field: "uptime")
            case "lastTouch": lastTouch = .some(try null() ? nil : try timestamp(field: "lastTouch"))
            case "devices": devices = try self.devices()
            case "clients": clients = try integer(field: "clients")
            case "maxClients": maxClients = try integer(field: "maxClients")
            case "counters": counters = try self.counters()
            default: try skip()
            }
        }
        return StatusMessage(
            protocol: try required(version, "protocol", members), version: try required(release, "version", members),
            uptime: try required(uptime, "uptime", members), lastTouch: try required(lastTouch, "lastTouch", members),
            devices: try required(devices, "devices", members),
            clients: try required(clients, "clients", members), maxClients: try required(maxClients, "maxClients", members),
            counters: try required(counters, "counters", members))
    }

    private mutating func counters() throws(ProtocolError) -> StatusMessage.Counters {
        guard peek() == .object else { throw wrongType("counters", "an object") }
        var events: UInt64?
        var sent: UInt64?
        var dropped: UInt64?
        var connections: UInt64?
        var rejected: UInt64?
        var slowDisconnects: UInt64?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "events": events = try unsigned(field: "counters.events")
            case "sent": sent = try unsigned(field: "counters.sent")
            case "dropped": dropped = try unsigned(field: "counters.dropped")
            case "connections": connections = try unsigned(field: "counters.connections")
            case "rejected": rejected = try unsigned(field: "counters.rejected")
            case "slowDisconnects": slowDisconnects = try unsigned(field: "counters.slowDisconnects")
            default: try skip()
            }
        }
        return StatusMessage.Counters(
            events: try required(events, "counters.events", members), sent: try required(sent, "counters.sent", members),
            dropped: try required(dropped, "counters.dropped", members),
            connections: try required(connections, "counters.connections", members),
            rejected: try required(rejected, "counters.rejected", members),
            slowDisconnects: try required(slowDisconnects, "counters.slowDisconnects", members))
    }

    private mutating func metrics() throws(ProtocolError) -> MetricsMessage {
        var uptime: UInt64?
        var devices: [DeviceInfo]?
        var clients: Int?
        var dropped: UInt64?
        var lastTouch: UInt64??
        var gestures: [MetricsMessage.GestureSeries]?
        var inputs: [MetricsMessage.DeviceInputs]?
        var latency: MetricsMessage.LatencyHistogram?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "uptime": uptime = try unsigned(field: "uptime")
            case "devices": devices = try self.devices()
            case "clients": clients = try integer(field: "clients")
            case "dropped": dropped = try unsigned(field: "dropped")
            case "lastTouch": lastTouch = .some(try null() ? nil : try unsigned(field: "lastTouch"))
            case "gestures":
                gestures = try objects("gestures") { reader throws(ProtocolError) in try reader.gestureSeries() }
            case "inputs":
                inputs = try objects("inputs") { reader throws(ProtocolError) in try reader.deviceInputs() }
            case "latency": latency = try self.latency()
            default: try skip()
            }
        }
        return MetricsMessage(
            uptime: try required(uptime, "uptime", members), devices: try required(devices, "devices", members),
            clients: try required(clients, "clients", members), dropped: try required(dropped, "dropped", members),
            lastTouch: try required(lastTouch, "lastTouch", members), gestures: try required(gestures, "gestures", members),
            inputs: try required(inputs, "inputs", members), latency: try required(latency, "latency", members))
    }

    /// An array of objects that `element` reads (`null` is refused: the field is required).
    private mutating func objects<Element>(
        _ field: String, _ element: (inout JSONReader) throws(ProtocolError) -> Element
    ) throws(ProtocolError) -> [Element] {
        let list = try list(field, expected: "an array of objects") { reader throws(ProtocolError) in
            guard reader.peek() == .object else { throw reader.wrongType(field, "an array of objects") }
            return try element(&reader)
        }
        guard let list else { throw wrongType(field, "an array of objects") }
        return list
    }

    private mutating func gestureSeries() throws(ProtocolError) -> MetricsMessage.GestureSeries {
        var device: String?
        var region: String??
        var counts: [MetricsMessage.GestureCount]?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "device": device = try string(field: "gestures.device")
            case "region": region = .some(try optionalString(field: "gestures.region"))
            case "counts":
                counts = try objects("gestures.counts") { reader throws(ProtocolError) in try reader.gestureCount() }
            default: try skip()
            }
        }
        return MetricsMessage.GestureSeries(
            device: try required(device, "gestures.device", members), region: try required(region, "gestures.region", members),
            counts: try required(counts, "gestures.counts", members))
    }

    private mutating func gestureCount() throws(ProtocolError) -> MetricsMessage.GestureCount {
        var gesture: GestureKind?
        var phase: GesturePhase?
        var count: UInt64?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "gesture": gesture = try name(GestureKind.self, field: "gestures.counts.gesture", what: "gesture")
            case "phase": phase = try name(GesturePhase.self, field: "gestures.counts.phase", what: "phase")
            case "count": count = try unsigned(field: "gestures.counts.count")
            default: try skip()
            }
        }
        return MetricsMessage.GestureCount(
            gesture: try required(gesture, "gestures.counts.gesture", members),
            phase: try required(phase, "gestures.counts.phase", members), count: try required(count, "gestures.counts.count", members))
    }

    private mutating func deviceInputs() throws(ProtocolError) -> MetricsMessage.DeviceInputs {
        var device: String?
        var touches: UInt64?
        var synDropped: UInt64?
        var filtered: [MetricsMessage.FilteredTouches] = []
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "device": device = try string(field: "inputs.device")
            case "touches": touches = try unsigned(field: "inputs.touches")
            case "synDropped": synDropped = try unsigned(field: "inputs.synDropped")
            case "filtered":
                guard peek() == .object else { throw wrongType("inputs.filtered", "an object") }
                var reasons = try beginObject()
                while let reason = try nextKey(&reasons) {
                    filtered.append(MetricsMessage.FilteredTouches(reason: reason.text, count: try unsigned(field: "inputs.filtered")))
                }
            default: try skip()
            }
        }
        return MetricsMessage.DeviceInputs(
            device: try required(device, "inputs.device", members), touches: try required(touches, "inputs.touches", members),
            synDropped: try required(synDropped, "inputs.synDropped", members), filtered: filtered)
    }

    private mutating func latency() throws(ProtocolError) -> MetricsMessage.LatencyHistogram {
        guard peek() == .object else { throw wrongType("latency", "an object") }
        var buckets: [MetricsMessage.LatencyHistogram.Bucket]?
        var count: UInt64?
        var sum: UInt64?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "buckets":
                buckets = try objects("latency.buckets") { reader throws(ProtocolError) in try reader.latencyBucket() }
            case "count": count = try unsigned(field: "latency.count")
            case "sum": sum = try unsigned(field: "latency.sum")
            default: try skip()
            }
        }
        return MetricsMessage.LatencyHistogram(
            buckets: try required(buckets, "latency.buckets", members), count: try required(count, "latency.count", members),
            sum: try required(sum, "latency.sum", members))
    }

    private mutating func latencyBucket() throws(ProtocolError) -> MetricsMessage.LatencyHistogram.Bucket {
        var le: UInt64?
        var count: UInt64?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "le": le = try unsigned(field: "latency.buckets.le")
            case "count": count = try unsigned(field: "latency.buckets.count")
            default: try skip()
            }
        }
        return MetricsMessage.LatencyHistogram.Bucket(
            le: try required(le, "latency.buckets.le", members), count: try required(count, "latency.buckets.count", members))
    }

    private mutating func touch() throws(ProtocolError) -> TouchMessage {
        var phase: TouchPhase?
        var touch: UInt64?
        var seq: UInt64?
        var time: Timestamp?
        var device: String?
        var location: Point?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "phase": phase = try name(TouchPhase.self, field: "phase", what: "touch phase")
            case "touch": touch = try unsigned(field: "touch")
            case "seq": seq = try unsigned(field: "seq")
            case "time": time = try timestamp(field: "time")
            case "device": device = try string(field: "device")
            case "location": location = try point(field: "location")
            default: try skip()
            }
        }
        return TouchMessage(
            phase: try required(phase, "phase", members), touch: try required(touch, "touch", members),
            seq: try required(seq, "seq", members),
            time: try required(time, "time", members), device: try required(device, "device", members),
            location: try required(location, "location", members))
    }

    private mutating func device() throws(ProtocolError) -> DeviceMessage {
        var phase: DevicePhase?
        var seq: UInt64?
        var time: Timestamp?
        var name: String?
        var kind: DeviceInfo.Kind?
        var path: String??
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "phase": phase = try self.name(DevicePhase.self, field: "phase", what: "device phase")
            case "seq": seq = try unsigned(field: "seq")
            case "time": time = try timestamp(field: "time")
            case "device": name = try string(field: "device")
            case "kind": kind = try self.name(DeviceInfo.Kind.self, field: "kind", what: "device kind")
            case "path": path = .some(try optionalString(field: "path"))
            default: try skip()
            }
        }
        let info = DeviceInfo(
            name: try required(name, "device", members), kind: try required(kind, "kind", members),
            path: try required(path, "path", members))
        return DeviceMessage(
            phase: try required(phase, "phase", members), seq: try required(seq, "seq", members),
            time: try required(time, "time", members), device: info)
    }

    private mutating func activity() throws(ProtocolError) -> ActivityMessage {
        var phase: ActivityPhase?
        var seq: UInt64?
        var time: Timestamp?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "phase": phase = try name(ActivityPhase.self, field: "phase", what: "activity phase")
            case "seq": seq = try unsigned(field: "seq")
            case "time": time = try timestamp(field: "time")
            default: try skip()
            }
        }
        return ActivityMessage(
            phase: try required(phase, "phase", members), seq: try required(seq, "seq", members),
            time: try required(time, "time", members))
    }

    private mutating func gesture() throws(ProtocolError) -> GestureMessage {
        var kind: GestureKind?
        var phase: GesturePhase?
        var id: UInt64?
        var seq: UInt64?
        var time: Timestamp?
        var device: String?
        var region: String??
        var fingers: Int?
        var location: Point?
        var localLocation: Point?
        var count: Int?
        var startLocation: Point?
        var localStartLocation: Point?
        var translation: Point?
        var velocity: Point?
        var predictedEndLocation: Point?
        var predictedEndTranslation: Point?
        var direction: SwipeDirection?
        var edge: ScreenEdge??
        var scale: Double?
        var rotation: Double?
        var members = try beginObject()
        while let key = try nextKey(&members) {
            switch key {
            case "gesture": kind = try name(GestureKind.self, field: "gesture", what: "gesture")
            case "phase": phase = try name(GesturePhase.self, field: "phase", what: "phase")
            case "id": id = try unsigned(field: "id")
            case "seq": seq = try unsigned(field: "seq")
            case "time": time = try timestamp(field: "time")
            case "device": device = try string(field: "device")
            case "region": region = .some(try optionalString(field: "region"))
            case "fingers": fingers = try integer(field: "fingers")
            case "location": location = try point(field: "location")
            case "localLocation": localLocation = try optionalPoint(field: "localLocation")
            case "count": count = try integer(field: "count")
            case "startLocation": startLocation = try point(field: "startLocation")
            case "localStartLocation": localStartLocation = try optionalPoint(field: "localStartLocation")
            case "translation": translation = try point(field: "translation")
            case "velocity": velocity = try point(field: "velocity")
            case "predictedEndLocation": predictedEndLocation = try point(field: "predictedEndLocation")
            case "predictedEndTranslation": predictedEndTranslation = try point(field: "predictedEndTranslation")
            case "direction": direction = try name(SwipeDirection.self, field: "direction", what: "swipe direction")
            case "edge": edge = .some(try null() ? nil : try name(ScreenEdge.self, field: "edge", what: "screen edge"))
            case "scale": scale = try double(field: "scale")
            case "rotation": rotation = try double(field: "rotation")
            default: try skip()
            }
        }
        func drag() throws(ProtocolError) -> GestureMessage.Drag {
            GestureMessage.Drag(
                startLocation: try required(startLocation, "startLocation", members), localStartLocation: localStartLocation,
                translation: try required(translation, "translation", members), velocity: try required(velocity, "velocity", members),
                predictedEndLocation: try required(predictedEndLocation, "predictedEndLocation", members),
                predictedEndTranslation: try required(predictedEndTranslation, "predictedEndTranslation", members))
        }
        let details: GestureMessage.Details
        switch try required(kind, "gesture", members) {
        case .press: details = .press
        case .tap: details = .tap(count: try required(count, "count", members))
        case .longPress: details = .longPress
        case .drag: details = .drag(try drag())
        case .swipe:
            details = .swipe(
                direction: try required(direction, "direction", members), edge: try required(edge, "edge", members), drag: try drag())
        case .pinch: details = .pinch(scale: try required(scale, "scale", members))
        case .rotate: details = .rotate(degrees: try required(rotation, "rotation", members))
        }
        return GestureMessage(
            phase: try required(phase, "phase", members), id: try required(id, "id", members), seq: try required(seq, "seq", members),
            time: try required(time, "time", members), device: try required(device, "device", members),
            region: try required(region, "region", members), fingers: try required(fingers, "fingers", members),
            location: try required(location, "location", members), localLocation: localLocation, details: details)
    }
}
