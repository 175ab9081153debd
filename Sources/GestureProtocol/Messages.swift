/// Every message the daemon sends (docs/protocol.md). Event messages (`gesture`, `touch`,
/// `device`, `activity`) carry the connection's `seq`; replies and notices (`hello`, `pong`,
/// `status`, `metrics`, `error`, `overflow`, `goodbye`) do not.
public enum ServerMessage: Sendable, Hashable {
    /// The first line of every connection.
    case hello(HelloMessage)
    case gesture(GestureMessage)
    /// A raw contact (only for a client that subscribed with `touches`).
    case touch(TouchMessage)
    /// A device arrived or went.
    case device(DeviceMessage)
    /// The daemon went idle (no touch for its idle timeout) or active again.
    case activity(ActivityMessage)
    /// The answer to `ping`: the daemon's monotonic clock.
    case pong(time: Timestamp)
    /// The answer to `status`.
    case status(StatusMessage)
    /// The answer to `metrics`.
    case metrics(MetricsMessage)
    /// A bad request, or a refused connection (which is then closed).
    case error(message: String)
    /// This client read too slowly and lost `dropped` events since the last notice.
    case overflow(dropped: UInt64)
    /// The daemon is closing the connection (`"stopping"`, or why a slow client goes).
    case goodbye(reason: String)
    /// A message type this library does not know (a newer server). Decoding only: encoding
    /// it writes just its type.
    case unknown(type: String)
}

/// `{"type":"hello",…}`.
public struct HelloMessage: Sendable, Hashable {
    /// The protocol version (1).
    public var `protocol`: Int
    /// `"gestured"`.
    public var server: String
    /// The daemon's release.
    public var version: String
    /// The devices in use when the client connected.
    public var devices: [DeviceInfo]

    public init(protocol: Int = protocolVersion, server: String = "gestured", version: String, devices: [DeviceInfo]) {
        self.protocol = `protocol`
        self.server = server
        self.version = version
        self.devices = devices
    }
}

/// The protocol version this module speaks, announced in `hello` and `status`.
public let protocolVersion = 1

/// `{"type":"gesture",…}`: one phase of one gesture.
public struct GestureMessage: Sendable, Hashable {
    public var phase: GesturePhase
    /// Shared by every phase of one gesture, unique for the daemon's lifetime.
    public var id: UInt64
    /// The connection's sequence number (strictly increasing from 1; skips dropped events).
    public var seq: UInt64
    /// The input that caused the event, or a timer's deadline.
    public var time: Timestamp
    /// The input device's name.
    public var device: String
    /// The configured region that recognized the gesture; nil for the top level.
    public var region: String?
    /// Fingers taking part.
    public var fingers: Int
    /// Where the gesture is now (the fingers' centroid).
    public var location: Point
    /// `location` in the region's own space, 0…1 from its top-left corner (only in a region).
    public var localLocation: Point?
    /// The gesture's kind and its own fields.
    public var details: Details

    public init(
        phase: GesturePhase, id: UInt64, seq: UInt64, time: Timestamp, device: String, region: String?, fingers: Int,
        location: Point, localLocation: Point? = nil, details: Details
    ) {
        self.phase = phase
        self.id = id
        self.seq = seq
        self.time = time
        self.device = device
        self.region = region
        self.fingers = fingers
        self.location = location
        self.localLocation = localLocation
        self.details = details
    }

    /// The gesture (`details` decides it).
    public var gesture: GestureKind { details.kind }

    /// The kind of a gesture with the fields only that kind has.
    public enum Details: Sendable, Hashable {
        case press
        /// `count`: the tap's place in a multi-tap sequence (1, 2, 3 …).
        case tap(count: Int)
        case longPress
        case drag(Drag)
        /// The drag's values, the direction, and the edge it started from (nil: none).
        case swipe(direction: SwipeDirection, edge: ScreenEdge?, drag: Drag)
        /// `scale`: the fingers' spread relative to where the pinch began; `velocity`: scale
        /// per second, 0 with no estimate (`began`, `cancelled`, a daemon older than it).
        case pinch(scale: Double, velocity: Double)
        /// `degrees`: turned since the rotation began, clockwise positive (the wire's
        /// `rotation`); `velocity`: degrees per second, 0 with no estimate (as a pinch's).
        case rotate(degrees: Double, velocity: Double)

        public var kind: GestureKind {
            switch self {
            case .press: .press
            case .tap: .tap
            case .longPress: .longPress
            case .drag: .drag
            case .swipe: .swipe
            case .pinch: .pinch
            case .rotate: .rotate
            }
        }
    }

    /// The motion fields of a drag and of the swipe it completes (SwiftUI's names).
    public struct Drag: Sendable, Hashable {
        public var startLocation: Point
        /// `startLocation` in the region's own space (only in a region).
        public var localStartLocation: Point?
        /// The screen edge the drag started from (within the edge margin), nil for none: an
        /// edge pan. A swipe states it as its own `edge` too.
        public var edge: ScreenEdge?
        public var translation: Point
        /// Normalised units per second.
        public var velocity: Point
        public var predictedEndLocation: Point
        public var predictedEndTranslation: Point

        public init(
            startLocation: Point, localStartLocation: Point? = nil, edge: ScreenEdge? = nil, translation: Point, velocity: Point,
            predictedEndLocation: Point, predictedEndTranslation: Point
        ) {
            self.startLocation = startLocation
            self.localStartLocation = localStartLocation
            self.edge = edge
            self.translation = translation
            self.velocity = velocity
            self.predictedEndLocation = predictedEndLocation
            self.predictedEndTranslation = predictedEndTranslation
        }
    }

    /// A tap's count; nil for other gestures.
    public var count: Int? {
        if case .tap(let count) = details { count } else { nil }
    }

    /// A drag's or swipe's motion; nil for other gestures.
    public var drag: Drag? {
        switch details {
        case .drag(let drag), .swipe(_, _, let drag): drag
        case .press, .tap, .longPress, .pinch, .rotate: nil
        }
    }

    /// A pinch's scale; nil for other gestures.
    public var scale: Double? {
        if case .pinch(let scale, _) = details { scale } else { nil }
    }

    /// A rotate's degrees; nil for other gestures.
    public var rotation: Double? {
        if case .rotate(let degrees, _) = details { degrees } else { nil }
    }

    /// A pinch's velocity (scale per second) or a rotate's (degrees per second); nil for
    /// other gestures (a drag's velocity is `drag.velocity`).
    public var transformVelocity: Double? {
        switch details {
        case .pinch(_, let velocity), .rotate(_, let velocity): velocity
        case .press, .tap, .longPress, .drag, .swipe: nil
        }
    }

    /// The screen edge a drag or swipe started from; nil for none and for other gestures.
    public var edge: ScreenEdge? {
        switch details {
        case .drag(let drag): drag.edge
        case .swipe(_, let edge, _): edge
        case .press, .tap, .longPress, .pinch, .rotate: nil
        }
    }

    /// A swipe's direction; nil for other gestures.
    public var direction: SwipeDirection? {
        if case .swipe(let direction, _, _) = details { direction } else { nil }
    }
}

/// `{"type":"touch",…}`: one raw contact of one input frame.
public struct TouchMessage: Sendable, Hashable {
    public var phase: TouchPhase
    /// Identifies the contact (not reused by the device's tracker).
    public var touch: UInt64
    public var seq: UInt64
    public var time: Timestamp
    public var device: String
    public var location: Point

    public init(phase: TouchPhase, touch: UInt64, seq: UInt64, time: Timestamp, device: String, location: Point) {
        self.phase = phase
        self.touch = touch
        self.seq = seq
        self.time = time
        self.device = device
        self.location = location
    }
}

/// `{"type":"device",…}`: a device arrived or went.
public struct DeviceMessage: Sendable, Hashable {
    public var phase: DevicePhase
    public var seq: UInt64
    /// The daemon's monotonic clock at the change.
    public var time: Timestamp
    public var device: DeviceInfo

    public init(phase: DevicePhase, seq: UInt64, time: Timestamp, device: DeviceInfo) {
        self.phase = phase
        self.seq = seq
        self.time = time
        self.device = device
    }
}

/// `{"type":"activity",…}`: no touch on any device for the idle timeout, or the first
/// touch after it.
public struct ActivityMessage: Sendable, Hashable {
    public var phase: ActivityPhase
    public var seq: UInt64
    /// When the idle timeout ran out (`idle`), or when the waking touch was read (`active`), on the daemon's monotonic clock.
    public var time: Timestamp

    public init(phase: ActivityPhase, seq: UInt64, time: Timestamp) {
        self.phase = phase
        self.seq = seq
        self.time = time
    }
}

/// `{"type":"status",…}`: the answer to a `status` request.
public struct StatusMessage: Sendable, Hashable {
    /// What the daemon counted over its life.
    public struct Counters: Sendable, Hashable {
        /// Events broadcast (before filtering).
        public var events: UInt64 = 0
        /// Event lines queued to clients.
        public var sent: UInt64 = 0
        /// Event lines dropped for slow clients.
        public var dropped: UInt64 = 0
        /// Connections accepted.
        public var connections: UInt64 = 0
        /// Connections refused (limit reached, not allowed).
        public var rejected: UInt64 = 0
        /// Clients disconnected for not reading.
        public var slowDisconnects: UInt64 = 0

        public init(
            events: UInt64 = 0, sent: UInt64 = 0, dropped: UInt64 = 0, connections: UInt64 = 0, rejected: UInt64 = 0,
            slowDisconnects: UInt64 = 0
        ) {
            self.events = events
            self.sent = sent
            self.dropped = dropped
            self.connections = connections
            self.rejected = rejected
            self.slowDisconnects = slowDisconnects
        }
    }

    public var `protocol`: Int
    public var version: String
    /// Whole seconds since the daemon started.
    public var uptime: UInt64
    /// When the daemon last read a touch on any device (its monotonic clock); nil when there was none yet.
    public var lastTouch: Timestamp?
    public var devices: [DeviceInfo]
    public var clients: Int
    public var maxClients: Int
    public var counters: Counters
    /// The ghost series touch hygiene learned on the devices (left out of the line when none).
    public var ghosts: [GhostSeries]

    public init(
        protocol: Int = protocolVersion, version: String, uptime: UInt64, lastTouch: Timestamp? = nil, devices: [DeviceInfo],
        clients: Int, maxClients: Int, counters: Counters, ghosts: [GhostSeries] = []
    ) {
        self.protocol = `protocol`
        self.version = version
        self.uptime = uptime
        self.lastTouch = lastTouch
        self.devices = devices
        self.clients = clients
        self.maxClients = maxClients
        self.counters = counters
        self.ghosts = ghosts
    }
}
