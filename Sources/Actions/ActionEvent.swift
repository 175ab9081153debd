import GestureCore
import GestureProtocol

/// What an action sees of one line from the daemon: a gesture event or an activity change,
/// with the line itself (for `GESTURED_EVENT`).
public struct ActionEvent: Sendable, Hashable {
    public var trigger: Action.Trigger
    /// The gesture's phase; nil for activity changes.
    public var phase: GesturePhase?
    public var region: String?
    public var device: String?
    /// Normalised screen location (0…1, origin top-left); nil for activity changes.
    public var location: Point?
    public var fingers: Int?
    public var count: Int?
    public var direction: SwipeDirection?
    public var edge: ScreenEdge?
    /// The whole JSON line as the daemon sent it.
    public var line: String

    public init(
        trigger: Action.Trigger, phase: GesturePhase? = nil, region: String? = nil, device: String? = nil,
        location: Point? = nil, fingers: Int? = nil, count: Int? = nil, direction: SwipeDirection? = nil,
        edge: ScreenEdge? = nil, line: String
    ) {
        self.trigger = trigger
        self.phase = phase
        self.region = region
        self.device = device
        self.location = location
        self.fingers = fingers
        self.count = count
        self.direction = direction
        self.edge = edge
        self.line = line
    }

    /// The variables a command gets (docs/actions.md): every one is set, empty when
    /// the event has no such field.
    public var environment: [(name: String, value: String)] {
        [
            ("GESTURED_GESTURE", trigger.description),
            ("GESTURED_PHASE", phase?.rawValue ?? ""),
            ("GESTURED_REGION", region ?? ""),
            ("GESTURED_DEVICE", device ?? ""),
            ("GESTURED_X", location.map { "\($0.x)" } ?? ""),
            ("GESTURED_Y", location.map { "\($0.y)" } ?? ""),
            ("GESTURED_FINGERS", fingers.map { "\($0)" } ?? ""),
            ("GESTURED_COUNT", count.map { "\($0)" } ?? ""),
            ("GESTURED_DIRECTION", direction?.rawValue ?? ""),
            ("GESTURED_EDGE", edge?.rawValue ?? ""),
            ("GESTURED_EVENT", line),
        ]
    }

    /// `swipe ended on ELAN Touchscreen in exit-edge`, for logs.
    public var summary: String {
        var text = trigger.description
        if let phase { text += " \(phase.rawValue)" }
        if let device { text += " on \(device)" }
        if let region { text += " in \(region)" }
        return text
    }
}

/// Which actions an event triggers.
public struct ActionMatcher: Sendable {
    public let actions: [Action]

    public init(_ actions: [Action]) {
        self.actions = actions
    }

    /// Indices into `actions` of every action the event triggers, in file order (all of them
    /// run, not just the first).
    public func matches(_ event: ActionEvent) -> [Int] {
        actions.indices.filter { Self.action(actions[$0], matches: event) }
    }

    /// Whether `action` triggers on `event`: same kind, same phase, and every filter given
    /// holds (a filter on a field the event lacks does not hold).
    public static func action(_ action: Action, matches event: ActionEvent) -> Bool {
        guard action.trigger == event.trigger, action.phase == event.phase else { return false }
        let filters = action.filters
        if let region = filters.region, event.region != region { return false }
        if let pattern = filters.device {
            guard let device = event.device, Glob.matches(pattern: pattern, device) else { return false }
        }
        if let fingers = filters.fingers, event.fingers != fingers { return false }
        if let count = filters.count, event.count != count { return false }
        if let direction = filters.direction, event.direction != direction { return false }
        if let edge = filters.edge, event.edge != edge { return false }
        return true
    }
}
