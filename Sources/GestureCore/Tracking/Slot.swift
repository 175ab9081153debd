/// One protocol-B slot (or the single touch of a single-touch device): the kernel's view
/// (occupancy, tracking id, axis values), what the engine was told (engagement), and what
/// changed since the last `SYN_REPORT`.
struct Slot: Sendable {
    /// Whether the kernel has a contact in the slot.
    enum Occupancy: Sendable, Equatable {
        /// Not known: the stream started, or resumed after `SYN_DROPPED`, without saying.
        case unknown
        /// The slot's last tracking id was -1.
        case empty
        /// The slot holds a contact.
        case occupied
    }

    /// Tracking id of a contact found down without having seen its id.
    static let unknownTrackingID = Int32.min

    // Kernel view. Values persist across contacts: the kernel only sends what changed.
    var x: Int32
    var y: Int32
    var tool: Int32 = MTTool.finger
    var trackingID: Int32 = -1
    var occupancy: Occupancy = .unknown

    // Engine view.
    var engagement: Engagement = .none
    var contactID: UInt32 = 0
    var startedUnobserved = false
    /// Position of the contact as last delivered.
    var committedX: Int32
    var committedY: Int32

    // Pending since the last SYN_REPORT.
    /// The contact the engine knows ended (lift, or a new tracking id in the slot).
    var endsCommitted = false
    /// A new contact started in the slot.
    var begins = false
    /// …and lifted again before the report.
    var beginLifts = false
    var positionReported = false

    init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
        committedX = x
        committedY = y
    }

    var hasPending: Bool { endsCommitted || begins || positionReported }

    @inline(__always)
    mutating func setX(_ value: Int32) {
        x = value
        positionReported = true
    }

    @inline(__always)
    mutating func setY(_ value: Int32) {
        y = value
        positionReported = true
    }

    /// `ABS_MT_TRACKING_ID`: -1 (any negative value) lifts the slot's contact; another
    /// non-negative id than the current one ends it, if any, and starts a new contact.
    mutating func setTrackingID(_ value: Int32) {
        if value < 0 {
            if begins && !beginLifts {
                beginLifts = true
            } else if !begins {
                endCommittedContact()
            }
            occupancy = .empty
            trackingID = -1
            return
        }
        if occupancy == .occupied && value == trackingID { return }
        if begins {
            // A third contact in one slot within one frame: the earlier new one is dropped
            // (documented), the latest one begins.
            beginLifts = false
        } else {
            endCommittedContact()
        }
        begins = true
        occupancy = .occupied
        trackingID = value
    }

    private mutating func endCommittedContact() {
        switch engagement {
        case .none: break
        case .live, .ignored: endsCommitted = true
        }
    }

    mutating func clearPending() {
        endsCommitted = false
        begins = false
        beginLifts = false
        positionReported = false
    }

    /// `cancelAll`: the engine is told the contact is cancelled; a finger still down in the
    /// slot (including one that began in the unreported partial frame) is ignored until it lifts.
    mutating func cancel() {
        clearPending()
        engagement = occupancy == .occupied ? .ignored : .none
    }

    /// After `SYN_DROPPED`: nothing is known about the slot any more.
    mutating func forget() {
        clearPending()
        engagement = .none
        occupancy = .unknown
        trackingID = -1
    }
}
