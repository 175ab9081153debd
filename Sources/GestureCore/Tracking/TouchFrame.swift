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
    /// Position on the physical surface, in millimetres from its top-left corner in screen
    /// orientation (rotation applied, calibration not).
    public var surfaceLocation: SurfacePoint
    /// True when the contact was already down before the tracker saw its start (a stream
    /// that begins mid-touch, or contacts found after a SYN_DROPPED resync). Its duration and
    /// start are unknown, so it never becomes a tap or a long press.
    public var startedUnobserved: Bool

    public init(id: UInt32, phase: TouchPhase, location: Point, surfaceLocation: SurfacePoint, startedUnobserved: Bool = false) {
        self.id = id
        self.phase = phase
        self.location = location
        self.surfaceLocation = surfaceLocation
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

extension Array {
    /// Removes every element and keeps the storage, one element at a time from the end. For
    /// the few elements a frame's buffers hold (contacts, protocol-A reports) this is cheaper
    /// than `removeAll(keepingCapacity: true)`, which goes through `replaceSubrange`: about a
    /// hundred instructions however few elements there are.
    @inline(__always)
    mutating func removeAllFromEnd() {
        while !isEmpty { removeLast() }
    }
}
