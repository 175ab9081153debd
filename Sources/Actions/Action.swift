import GestureCore
import GestureProtocol

/// One `[[action]]` of an actions file: which events it matches and what it does.
public struct Action: Sendable, Hashable {
    /// 1-based line of the `[[action]]` header, to name the action in logs.
    public var line: Int
    /// The gesture (or activity change) that triggers it.
    public var trigger: Trigger
    /// The phase that triggers it; nil for `idle` and `active`, which have none.
    public var phase: GesturePhase?
    /// Further conditions; each one given must hold.
    public var filters: Filters
    /// A command to run, or keys to type.
    public var effect: Effect
    /// How long a command may run before it is stopped (SIGTERM, then SIGKILL after
    /// `RunScheduler.killGrace`); nil: never.
    public var timeout: Duration?
    /// What happens when the action triggers while an earlier run of it is alive.
    public var overlap: Overlap

    public init(
        line: Int, trigger: Trigger, phase: GesturePhase?, filters: Filters = Filters(), effect: Effect,
        timeout: Duration? = Action.defaultTimeout, overlap: Overlap = .skip
    ) {
        self.line = line
        self.trigger = trigger
        self.phase = phase
        self.filters = filters
        self.effect = effect
        self.timeout = timeout
        self.overlap = overlap
    }

    /// `timeout` when the file gives none (docs/actions: 60 s).
    public static let defaultTimeout: Duration = .seconds(60)

    /// `action at line 12 (swipe ended)`, for logs.
    public var label: String {
        if let phase {
            return "action at line \(line) (\(trigger) \(phase.rawValue))"
        }
        return "action at line \(line) (\(trigger))"
    }

    /// What an action matches: a gesture kind, or the daemon's activity changes.
    public enum Trigger: Sendable, Hashable, CustomStringConvertible {
        case gesture(GestureKind)
        /// `{"type":"activity","phase":"idle"}`: no touch for the daemon's idle timeout.
        case idle
        /// `{"type":"activity","phase":"active"}`: the first touch after idle.
        case active

        /// Every trigger by its name in actions files, in the documented order.
        public static let all: [Trigger] = GestureKind.allCases.sorted().map { .gesture($0) } + [.idle, .active]

        /// The name used in actions files and in `GESTURED_GESTURE`.
        public var description: String {
            switch self {
            case .gesture(let kind): kind.rawValue
            case .idle: "idle"
            case .active: "active"
            }
        }

        /// The phases a gesture of this kind goes through (docs/protocol.md); empty for the
        /// activity triggers.
        public var phases: [GesturePhase] {
            switch self {
            case .gesture(.tap), .gesture(.swipe): [.ended]
            case .gesture(.press): [.began, .ended, .cancelled]
            case .gesture(.longPress), .gesture(.drag), .gesture(.pinch), .gesture(.rotate): [.began, .changed, .ended, .cancelled]
            case .idle, .active: []
            }
        }

        /// The phase an action triggers on when the file gives none: `began` for a long
        /// press (the finger is still down), `ended` otherwise; nil for idle and active.
        public var defaultPhase: GesturePhase? {
            switch self {
            case .gesture(.longPress): .began
            case .gesture: .ended
            case .idle, .active: nil
            }
        }
    }

    /// Conditions on the event beyond its kind and phase; nil: any.
    public struct Filters: Sendable, Hashable {
        /// The region that recognized the gesture (its name in gestured.toml).
        public var region: String?
        /// Glob (`*`, `?`) on the device name.
        public var device: String?
        public var fingers: Int?
        /// A tap's count (2: the second tap of a double tap).
        public var count: Int?
        public var direction: SwipeDirection?
        public var edge: ScreenEdge?

        public init(
            region: String? = nil, device: String? = nil, fingers: Int? = nil, count: Int? = nil,
            direction: SwipeDirection? = nil, edge: ScreenEdge? = nil
        ) {
            self.region = region
            self.device = device
            self.fingers = fingers
            self.count = count
            self.direction = direction
            self.edge = edge
        }
    }

    /// What an action does.
    public enum Effect: Sendable, Hashable {
        /// Runs this argv (no shell), the event in its environment.
        case run([String])
        /// Types these chords, one after the other (`ActionsFile.keyboard` says how).
        case keys([KeyChord])
    }

    /// What to do when an action triggers while an earlier run of its command is alive.
    public enum Overlap: String, Sendable, Hashable, CaseIterable {
        /// Do nothing this time (default): a restart command is not started twice.
        case skip
        /// Run it when the earlier run has ended (at most `RunScheduler.queueLimit` waiting).
        case queue
        /// Run it now, beside the earlier run.
        case parallel
    }
}

/// The actions of one file, in file order.
public struct ActionsFile: Sendable, Hashable {
    /// The file as it was given (for messages).
    public var path: String
    public var actions: [Action]
    /// How the `keys` actions type (`keyboard`).
    public var keyboard: KeyboardBackend

    public init(path: String, actions: [Action], keyboard: KeyboardBackend = .default) {
        self.path = path
        self.actions = actions
        self.keyboard = keyboard
    }

    /// The gesture kinds to subscribe to: those some action triggers on, in the documented
    /// order (activity lines are not filtered by the daemon).
    public var subscribedGestures: [GestureKind] {
        var kinds = Set<GestureKind>()
        for action in actions {
            if case .gesture(let kind) = action.trigger {
                kinds.insert(kind)
            }
        }
        return kinds.sorted()
    }

    /// Whether any action types keys (and so needs `wtype` and a Wayland display, or the
    /// uinput keyboard).
    public var typesKeys: Bool {
        actions.contains { action in
            switch action.effect {
            case .keys: true
            case .run: false
            }
        }
    }

    /// Every key code some action types, sorted: what the uinput keyboard must offer.
    public var keyCodes: [UInt16] {
        var codes = Set<UInt16>()
        for action in actions {
            switch action.effect {
            case .keys(let chords): codes.formUnion(chords.flatMap(\.codes))
            case .run: break
            }
        }
        return codes.sorted()
    }
}
