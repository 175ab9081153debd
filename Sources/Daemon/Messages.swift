import GestureCore

/// What the daemon tells clients about one input device.
public struct DeviceInfo: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case touchscreen, touchpad
        /// A recording played by `run --replay`.
        case replay
    }

    /// The device name, as in events' `device` field.
    public var name: String
    public var kind: Kind
    /// The device node (or recording file), when there is one.
    public var path: String?

    public init(name: String, kind: Kind, path: String? = nil) {
        self.name = name
        self.kind = kind
        self.path = path
    }
}

/// One event line encoded once for every client, with its `seq` value left open so each
/// connection writes its own sequence number at send time.
///
/// The encoder is run twice (seq 0 and seq 1); the single byte where the two lines differ
/// is where the seq digits go. This needs no knowledge of the line's layout.
public struct EncodedEvent: Sendable {
    let prefix: [UInt8]
    /// Empty and unused when the encoder wrote no seq.
    let suffix: [UInt8]
    let hasSeq: Bool

    init(_ encode: (UInt64, inout JSONWriter) -> Void) {
        var zeroWriter = JSONWriter(capacity: 256)
        var oneWriter = JSONWriter(capacity: 256)
        encode(0, &zeroWriter)
        encode(1, &oneWriter)
        let zero = zeroWriter.bytes
        let one = oneWriter.bytes
        var split: Int? = nil
        if zero.count == one.count {
            for i in zero.indices where zero[i] != one[i] {
                if split != nil { split = nil; break }
                split = i
            }
        }
        if let split {
            prefix = Array(zero[..<split])
            suffix = Array(zero[(split + 1)...])
            hasSeq = true
        } else {
            prefix = zero
            suffix = []
            hasSeq = false
        }
    }

    /// Appends the line with `seq`.
    func append(seq: UInt64, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: prefix)
        if hasSeq {
            JSONWriter.append(to: &bytes) { $0.unsigned(seq) }
            bytes.append(contentsOf: suffix)
        }
    }

    var byteCount: Int { prefix.count + suffix.count + 20 }
}

/// Control lines (not events: they carry no `seq`).
enum ControlMessage {
    static func hello(version: String, devices: [DeviceInfo]) -> [UInt8] {
        line { w in
            w.key("type"); w.string("hello")
            w.key("protocol"); w.integer(WireEncoder.protocolVersion)
            w.key("server"); w.string("gestured")
            w.key("version"); w.string(version)
            w.key("devices"); appendDevices(devices, to: &w)
        }
    }

    static func pong(time: UInt64) -> [UInt8] {
        line { w in
            w.key("type"); w.string("pong")
            w.key("time"); w.unsigned(time)
        }
    }

    static func error(_ message: String) -> [UInt8] {
        line { w in
            w.key("type"); w.string("error")
            w.key("message"); w.string(message)
        }
    }

    static func overflow(dropped: UInt64) -> [UInt8] {
        line { w in
            w.key("type"); w.string("overflow")
            w.key("dropped"); w.unsigned(dropped)
        }
    }

    static func goodbye(reason: String) -> [UInt8] {
        line { w in
            w.key("type"); w.string("goodbye")
            w.key("reason"); w.string(reason)
        }
    }

    static func status(_ status: ServerStatus) -> [UInt8] {
        line { w in
            w.key("type"); w.string("status")
            w.key("protocol"); w.integer(WireEncoder.protocolVersion)
            w.key("version"); w.string(status.version)
            w.key("uptime"); w.unsigned(status.uptimeSeconds)
            w.key("devices"); appendDevices(status.devices, to: &w)
            w.key("clients"); w.integer(status.clients)
            w.key("maxClients"); w.integer(status.maxClients)
            w.key("counters"); w.beginObject()
            w.key("events"); w.unsigned(status.counters.events)
            w.key("sent"); w.unsigned(status.counters.sent)
            w.key("dropped"); w.unsigned(status.counters.dropped)
            w.key("connections"); w.unsigned(status.counters.connections)
            w.key("rejected"); w.unsigned(status.counters.rejected)
            w.key("slowDisconnects"); w.unsigned(status.counters.slowDisconnects)
            w.endObject()
        }
    }

    private static func appendDevices(_ devices: [DeviceInfo], to w: inout JSONWriter) {
        w.beginArray()
        for device in devices {
            w.beginObject()
            w.key("name"); w.string(device.name)
            w.key("kind"); w.string(device.kind.rawValue)
            w.key("path"); w.optionalString(device.path)
            w.endObject()
        }
        w.endArray()
    }

    private static func line(_ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.append(to: &bytes) { w in
            w.beginObject()
            body(&w)
            w.endObject()
            w.endLine()
        }
        return bytes
    }
}

/// Counters reported by `status`.
public struct ServerCounters: Sendable, Hashable {
    /// Events broadcast (before filtering).
    public var events: UInt64 = 0
    /// Event lines queued to clients.
    public var sent: UInt64 = 0
    /// Event lines dropped for slow clients.
    public var dropped: UInt64 = 0
    /// Connections accepted over the daemon's life.
    public var connections: UInt64 = 0
    /// Connections refused (limit reached, not allowed).
    public var rejected: UInt64 = 0
    /// Clients disconnected for not reading.
    public var slowDisconnects: UInt64 = 0
}

/// The answer to `status`.
public struct ServerStatus: Sendable {
    public var version: String
    public var uptimeSeconds: UInt64
    public var devices: [DeviceInfo]
    public var clients: Int
    public var maxClients: Int
    public var counters: ServerCounters
}
