/// Where a contact is in its life, as seen in one frame.
public enum ContactPhase: UInt8, Sendable, Hashable {
    /// The contact touched down in this frame.
    case began
    /// The contact is still down (it may or may not have moved).
    case moved
    /// The contact lifted in this frame; its location is the last one reported.
    case ended
    /// The contact stopped being a finger (palm) or its state was lost (SYN_DROPPED,
    /// device removed): every gesture it takes part in must end as `cancelled`.
    case cancelled
}

/// One finger on the surface in one frame.
public struct Contact: Sendable, Hashable {
    /// Identifier unique for the life of one ContactTracker (never reused, unlike
    /// kernel tracking ids and slots).
    public var id: UInt32
    public var phase: ContactPhase
    /// Position in normalised screen space: 0…1, origin top-left, after calibration and rotation.
    public var location: Point
    /// Position in millimetres from the surface's top-left corner, in screen orientation
    /// (rotation applied, calibration not).
    public var millimetres: Point
    /// True when the contact was already down before the tracker saw its start (a stream
    /// that begins mid-touch, or contacts found after a SYN_DROPPED resync). Its duration and
    /// start are unknown, so it never becomes a tap or a long press.
    public var startedUnobserved: Bool

    public init(id: UInt32, phase: ContactPhase, location: Point, millimetres: Point, startedUnobserved: Bool = false) {
        self.id = id
        self.phase = phase
        self.location = location
        self.millimetres = millimetres
        self.startedUnobserved = startedUnobserved
    }
}

/// Everything the device reported up to one `SYN_REPORT`: the unit of input of the engine.
public struct TouchFrame: Sendable, Hashable {
    /// Timestamp of the `SYN_REPORT` (or `SYN_DROPPED`) in microseconds.
    public var time: UInt64
    /// Every contact that is down in this frame, plus those that ended or were cancelled in it.
    public var contacts: [Contact]
    /// Fingers on the surface as the device counts them (`BTN_TOOL_DOUBLETAP` … `QUINTTAP`
    /// on touchpads that track fewer slots than fingers); at least the number of contacts down.
    public var fingerCount: Int

    public init(time: UInt64, contacts: [Contact] = [], fingerCount: Int = 0) {
        self.time = time
        self.contacts = contacts
        self.fingerCount = fingerCount
    }
}
