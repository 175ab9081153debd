import GestureProtocol

/// One finger on the surface in one frame.
public struct Contact: Sendable, Hashable {
    /// Identifier unique for the life of one ContactTracker (never reused, unlike
    /// kernel tracking ids and slots).
    public var id: UInt32
    /// Where it is in its life (the protocol's `touch` phases).
    public var phase: TouchPhase
    /// Position in normalised screen space: 0…1, origin top-left, after calibration and rotation.
    public var location: Point
    /// Position in millimetres from the surface's top-left corner, in screen orientation
    /// (rotation applied, calibration not).
    public var millimetres: Point
    /// True when the contact was already down before the tracker saw its start (a stream
    /// that begins mid-touch, or contacts found after a SYN_DROPPED resync). Its duration and
    /// start are unknown, so it never becomes a tap or a long press.
    public var startedUnobserved: Bool

    public init(id: UInt32, phase: TouchPhase, location: Point, millimetres: Point, startedUnobserved: Bool = false) {
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
    public var time: Timestamp
    /// Every contact that is down in this frame, plus those that ended or were cancelled in it.
    public var contacts: [Contact]
    /// Fingers on the surface as the device counts them (`BTN_TOOL_DOUBLETAP` … `QUINTTAP`
    /// on touchpads that track fewer slots than fingers); at least the number of contacts down.
    public var fingerCount: Int

    public init(time: Timestamp, contacts: [Contact] = [], fingerCount: Int = 0) {
        self.time = time
        self.contacts = contacts
        self.fingerCount = fingerCount
    }
}
