/// A normalised screen point (0…1, origin top-left).
public struct Location: Codable, Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// One `{"type":"gesture",…}` event. Kind-specific fields are nil for other kinds.
public struct GestureMessage: Codable, Sendable, Hashable {
    /// `press`, `tap`, `long-press`, `drag`, `swipe`, `pinch`, `rotate`.
    public var gesture: String
    /// `began`, `changed`, `ended`, `cancelled`.
    public var phase: String
    public var id: UInt64
    public var seq: UInt64
    /// Microseconds (the input's timestamp).
    public var time: UInt64
    public var device: String
    public var region: String?
    public var fingers: Int
    public var location: Location
    /// `location` in the region's own space, 0…1 from its top-left (nil outside regions).
    public var localLocation: Location?
    public var count: Int?
    public var startLocation: Location?
    /// `startLocation` in the region's own space (drag and swipe in a region).
    public var localStartLocation: Location?
    public var translation: Location?
    public var velocity: Location?
    public var predictedEndLocation: Location?
    public var predictedEndTranslation: Location?
    public var direction: String?
    public var edge: String?
    public var scale: Double?
    public var rotation: Double?
}

/// A device as listed in `hello` and `status`.
public struct DeviceSummary: Codable, Sendable, Hashable {
    public var name: String
    public var kind: String
    public var path: String?
}

/// `{"type":"device","phase":"added"|"removed",…}`.
public struct DeviceMessage: Codable, Sendable, Hashable {
    public var phase: String
    public var seq: UInt64
    public var time: UInt64
    public var device: String
    public var kind: String?
    public var path: String?
}

/// `{"type":"touch",…}`: one raw contact (only when subscribed with touches).
public struct TouchMessage: Codable, Sendable, Hashable {
    public var phase: String
    public var touch: UInt64
    public var seq: UInt64
    public var time: UInt64
    public var device: String
    public var location: Location
}

public struct HelloMessage: Codable, Sendable, Hashable {
    public var `protocol`: Int
    public var server: String
    public var version: String
    public var devices: [DeviceSummary]
}

public struct StatusMessage: Codable, Sendable, Hashable {
    public struct Counters: Codable, Sendable, Hashable {
        public var events: UInt64
        public var sent: UInt64
        public var dropped: UInt64
        public var connections: UInt64
        public var rejected: UInt64
        public var slowDisconnects: UInt64
    }

    public var version: String
    public var uptime: UInt64
    public var devices: [DeviceSummary]
    public var clients: Int
    public var maxClients: Int
    public var counters: Counters
}

/// Everything the server sends.
public enum ServerMessage: Decodable, Sendable, Hashable {
    case hello(HelloMessage)
    case gesture(GestureMessage)
    case device(DeviceMessage)
    case touch(TouchMessage)
    /// `time`: the server's monotonic clock in microseconds.
    case pong(time: UInt64)
    case status(StatusMessage)
    case error(message: String)
    /// Events lost because the client read too slowly.
    case overflow(dropped: UInt64)
    case goodbye(reason: String)
    /// A message type this library does not know (newer server).
    case unknown(type: String)

    private enum Keys: String, CodingKey { case type, time, message, dropped, reason }

    public init(from decoder: Decoder) throws {
        let keys = try decoder.container(keyedBy: Keys.self)
        let type = try keys.decode(String.self, forKey: .type)
        switch type {
        case "hello": self = .hello(try HelloMessage(from: decoder))
        case "gesture": self = .gesture(try GestureMessage(from: decoder))
        case "device": self = .device(try DeviceMessage(from: decoder))
        case "touch": self = .touch(try TouchMessage(from: decoder))
        case "pong": self = .pong(time: try keys.decode(UInt64.self, forKey: .time))
        case "status": self = .status(try StatusMessage(from: decoder))
        case "error": self = .error(message: try keys.decode(String.self, forKey: .message))
        case "overflow": self = .overflow(dropped: try keys.decode(UInt64.self, forKey: .dropped))
        case "goodbye": self = .goodbye(reason: try keys.decode(String.self, forKey: .reason))
        default: self = .unknown(type: type)
        }
    }
}
