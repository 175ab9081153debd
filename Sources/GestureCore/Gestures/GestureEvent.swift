import GestureProtocol

/// Motion values of a drag (and of the drag a swipe completes): the protocol's own type,
/// so an engine event becomes a message without copying field by field. The engine leaves
/// `localStartLocation` nil; `GestureMessage(_:device:)` fills it in from the region.
public typealias DragValues = GestureMessage.Drag

/// The kind of a gesture event with the fields only that kind has (the kind is never
/// stated apart from its fields, so the two cannot disagree): the protocol's own type.
public typealias GestureDetails = GestureMessage.Details

/// Why a press was cancelled. Not on the wire; for checkers (`GestureStreamValidator`).
public enum PressCancellation: Sendable, Hashable {
    /// The touch itself was cancelled (palm, `SYN_DROPPED`, device removed, daemon
    /// stopping): every gesture it carried was cancelled before the press.
    case touchCancelled
    /// The touch goes on without this press (it left the region, or a gesture of an
    /// enclosing region won it): gestures that go on, such as a long press that has begun,
    /// outlive the press and end later.
    case released
}

/// One gesture event as the engine emits it. The wire adds `type`, `seq` and `device`.
public struct GestureEvent: Sendable, Hashable {
    public var phase: GesturePhase
    /// Shared by every phase of one gesture; unique across the daemon's lifetime.
    public var id: UInt64
    /// Microseconds: the timestamp of the input that caused it, or a timer's deadline.
    public var time: Timestamp
    /// The configured region that recognized it (the innermost region around the touch's
    /// start that enables this kind, see docs/gestures.md), nil for the top level.
    public var region: String?
    public var fingers: Int
    /// Normalised screen location (for multi-finger gestures, the centroid).
    public var location: Point
    /// The gesture's kind and its own fields.
    public var details: GestureDetails
    /// The rectangle of `region` in normalised screen space (nil with `region`): what the
    /// region-local coordinates are relative to.
    public var regionRect: Rect?
    /// The touch the event belongs to: the first contact (`Contact.id`) of the touch whose
    /// press brackets it (a finger that joins a busy region's sequence belongs to that
    /// sequence's touch). The gestures of one touch share it across regions. Not on the wire;
    /// for checkers (`GestureStreamValidator`) and tests. 0 when unknown.
    public var touch: UInt32
    /// On a press's `cancelled`: why. Not on the wire; nil for every other event.
    public var pressCancellation: PressCancellation?

    public init(
        _ details: GestureDetails, phase: GesturePhase, id: UInt64, time: Timestamp, region: String?, fingers: Int, location: Point,
        regionRect: Rect? = nil, touch: UInt32 = 0, pressCancellation: PressCancellation? = nil
    ) {
        self.phase = phase
        self.id = id
        self.time = time
        self.region = region
        self.fingers = fingers
        self.location = location
        self.details = details
        self.regionRect = regionRect
        self.touch = touch
        self.pressCancellation = pressCancellation
    }

    /// The gesture (`details` decides it).
    public var kind: GestureKind { details.kind }

    /// `location` in the region's own space (SwiftUI's `.local`): 0…1 across the region's
    /// rectangle from its top-left; nil for the top level.
    public var localLocation: Point? { regionRect.map { $0.local(location) } }

    /// The drag's (or swipe's) `startLocation` in the region's own space; nil for the top
    /// level and for gestures without a start location.
    public var localStartLocation: Point? {
        guard let regionRect else { return nil }
        switch details {
        case .drag(let values), .swipe(_, _, let values): return regionRect.local(values.startLocation)
        case .press, .tap, .longPress, .pinch, .rotate: return nil
        }
    }
}

/// Receives the engine's output. The engine calls `nextGestureID()` once per new gesture, so
/// one allocator can keep ids unique across every device's engine.
public protocol GestureSink {
    mutating func nextGestureID() -> UInt64
    mutating func emit(_ event: GestureEvent)
    /// Touch hygiene dropped or ended a touch (counted and logged by the daemon, traced by
    /// `gestured replay --trace`). Default: nothing.
    mutating func touchFiltered(_ filtered: TouchFiltered)
    /// `DevicePipeline` made `frame` (from input, touch hygiene's at a deadline: a held
    /// touch accepted, a stuck one ended, or the one that cancels every contact of a device
    /// that goes or is reloaded); the engine classifies it next (the daemon's idle
    /// watch: `active` before the waking touch's gestures). Default: nothing.
    mutating func frameMade(_ frame: TouchFrame)
    /// The engine classified `frame`, the one `frameMade` showed, and its gestures are out
    /// (the daemon counts its touch-downs and sends its `touch` lines). Default: nothing.
    mutating func frameClassified(_ frame: TouchFrame)
}

extension GestureSink {
    public mutating func touchFiltered(_ filtered: TouchFiltered) {}
    @inlinable public mutating func frameMade(_ frame: TouchFrame) {}
    @inlinable public mutating func frameClassified(_ frame: TouchFrame) {}
}
