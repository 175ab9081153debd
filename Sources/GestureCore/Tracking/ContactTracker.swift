import GestureProtocol

/// Turns the evdev event stream of one device into `TouchFrame`s, one per `SYN_REPORT`
/// that has something to say.
///
/// Handles multitouch protocol B (slots), protocol A (`SYN_MT_REPORT`, with or without
/// tracking ids), single-touch devices (`ABS_X`/`ABS_Y` + `BTN_TOUCH`), `BTN_TOOL_*` finger
/// counts, palms and pens (`ABS_MT_TOOL_TYPE`) and `SYN_DROPPED`. See docs/tracking.md.
///
/// Steady-state `feed` does not allocate: slots live in a fixed array and `frame.contacts`
/// keeps its capacity between frames (as long as the caller does not hold on to a copy).
public struct ContactTracker: Sendable {
    /// The last completed frame; valid until the next call to `feed` or `cancelAll`.
    public private(set) var frame: TouchFrame
    /// With `tracksSources`: for each contact of `frame`, where the device reports it: its
    /// protocol-B slot, its index among this frame's protocol-A contacts, or 0 (single
    /// touch). The pass-through filter names touches the same way (`TouchHygiene.hidden`).
    public private(set) var sources: [Int] = []
    /// Whether `sources` is kept (touch hygiene needs it; without, it costs nothing).
    public var tracksSources = false
    /// Size of the surface in millimetres (screen orientation) and where it came from.
    public let surface: SurfaceGeometry

    /// Most slots a protocol-B device may use here; higher slots are ignored.
    static let maximumSlots = 256
    /// Most contacts one protocol-A frame may carry; further ones are ignored.
    static let maximumUnslottedContacts = 32

    private let mapper: CoordinateMapper
    private let kind: InputProtocol
    /// Protocol B slots, or one slot driven by `BTN_TOUCH` for single-touch devices.
    private var slots: [Slot]
    /// Index into `slots` of the slot that `ABS_MT_*` events address; nil when the device
    /// selected a slot outside the range (its events are ignored).
    private var currentSlot: Int?
    /// One past the highest slot index ever addressed (the first slot's events, or
    /// `ABS_MT_SLOT`): the slots from here on have never had an event, so they are idle and
    /// `completeFrame` does not look at them (a 60-slot panel touched by two fingers).
    private var slotsInUse = 1
    private let slotMinimum: Int32
    /// Protocol A state.
    private var unslotted: UnslottedContacts
    /// Key codes that mean "touching" on a single-touch device.
    private let touchKey: UInt16
    private let alternateTouchKey: UInt16?
    /// Single-touch devices have no tracking ids: each touch gets a synthetic one.
    private var nextSyntheticTrackingID: Int32 = 0
    /// Bit n set when the `BTN_TOOL_*` key meaning n+1 fingers is down.
    private var toolFingerBits: UInt8 = 0
    /// Bit set when `BTN_TOOL_PEN` or `BTN_TOOL_RUBBER` is down (single-touch tablets).
    private var penDown = false
    /// True from `SYN_DROPPED` up to and including the next `SYN_REPORT`.
    private var discardingUntilReport = false
    private var nextContactID: UInt32 = 1
    private var lastFrameTime: Timestamp = .zero
    private var lastFingerCount = 0
    /// Whether `BTN_TOOL_DOUBLETAP` … `QUINTTAP` add fingers beyond the tracked contacts.
    /// Only touchpads count that way (SEMI_MT pads report two slots for five fingers);
    /// touchscreens report every contact, and some (N-Trig) hold `BTN_TOOL_DOUBLETAP`
    /// while only one finger is down.
    private let countsFingersByTool: Bool
    /// Whether the device reports contact with `BTN_TOUCH`; if so, `BTN_TOOL_*` keys held
    /// while it is up are fingers hovering (Synaptics reports them), not touching.
    private let hasTouchKey: Bool
    private var touchKeyDown = false

    public init(device: DeviceDescription, geometry: DeviceGeometry = DeviceGeometry()) {
        let axes = TrackedAxes(device: device)
        let size = DeviceSize(axes: axes, geometry: geometry, fallbackDiagonal: SurfaceGeometry.fallbackDiagonal(for: device))
        countsFingersByTool = device.kind == .touchpad
        hasTouchKey = device.has(EV.key, BTN.touch)
        surface = size.surface(rotation: geometry.rotation)
        mapper = CoordinateMapper(axes: axes, size: size, geometry: geometry)
        frame = TouchFrame(time: .zero)

        let slotCount: Int
        if device.isMultitouch && device.hasSlots {
            kind = .slotted
            slotCount = min(device.slotCount, Self.maximumSlots)
            let slotInfo = device.absInfo[ABS.mtSlot] ?? AbsInfo(minimum: 0, maximum: 0)
            slotMinimum = slotInfo.minimum
            let current = Int(slotInfo.value) - Int(slotInfo.minimum)
            currentSlot = (0..<slotCount).contains(current) ? current : 0
        } else if device.isMultitouch {
            kind = .unslotted
            slotCount = 1
            slotMinimum = 0
            currentSlot = 0
        } else if device.absInfo[ABS.x] != nil && device.absInfo[ABS.y] != nil {
            kind = .singleTouch
            slotCount = 1
            slotMinimum = 0
            currentSlot = 0
        } else {
            kind = .none
            slotCount = 1
            slotMinimum = 0
            currentSlot = 0
        }
        slots = Array(repeating: Slot(x: axes.x.value, y: axes.y.value), count: slotCount)
        unslotted = UnslottedContacts(capacity: Self.maximumUnslottedContacts)
        touchKey = BTN.touch
        alternateTouchKey = !device.has(EV.key, BTN.touch) && device.has(EV.key, BTN.left) ? BTN.left : nil
        if case .singleTouch = kind, device.kind == .touchpad, device.has(EV.key, BTN.touch) {
            // Single-touch pads (Synaptics) report positions while a finger hovers: only the
            // touch key says a finger is down, so positions alone at stream start are not a
            // touch. (A touchscreen's positions at stream start are a finger already down.)
            slots[0].occupancy = .empty
        }
        slotsInUse = (currentSlot ?? 0) + 1
        frame.contacts.reserveCapacity(max(slotCount, Self.maximumUnslottedContacts))
        sources.reserveCapacity(max(slotCount, Self.maximumUnslottedContacts))
    }

    // MARK: - Input

    /// Feeds one event. Returns true when a frame is complete; read it from `frame` before
    /// the next feed. A `SYN_REPORT` with nothing to say (no contact down, ended or
    /// cancelled, finger count unchanged) completes no frame.
    /// Inlined into `DevicePipeline.feed`: an event that completes no frame (most) then
    /// costs its caller no call.
    @inline(__always)
    public mutating func feed(_ event: InputEvent) -> Bool {
        if discardingUntilReport {
            if event.type == EV.syn && event.code == SYN.report { discardingUntilReport = false }
            return false
        }
        switch event.type {
        case EV.abs:
            handleAxis(code: event.code, value: event.value)
            return false
        case EV.key:
            handleKey(code: event.code, value: event.value)
            return false
        case EV.syn:
            switch event.code {
            case SYN.report: return completeFrame(at: event.time)
            case SYN.mtReport:
                unslotted.endReport()
                return false
            case SYN.dropped: return dropped(at: event.time)
            default: return false
            }
        default:
            return false
        }
    }

    /// Cancels every active contact (device removed, daemon stopping): returns true and
    /// fills `frame` if any contact was active. Fingers still down stay ignored until they
    /// lift, should the device keep reporting.
    public mutating func cancelAll(at time: Timestamp) -> Bool {
        beginFrame(at: time)
        appendLiveContactsCancelled()
        for index in slots.indices {
            slots[index].cancel()
        }
        for index in unslotted.tracked.indices where unslotted.tracked[index].engagement == .live {
            unslotted.tracked[index].engagement = .ignored
        }
        frame.fingerCount = 0
        lastFingerCount = 0
        return !frame.contacts.isEmpty
    }

    // MARK: - Events

    /// Inlined into `feed`: most events are axes, and the call cost as much as the work.
    @inline(__always)
    private mutating func handleAxis(code: UInt16, value: Int32) {
        switch kind {
        case .slotted:
            if code == ABS.mtSlot {
                let index = Int(value) - Int(slotMinimum)
                currentSlot = index >= 0 && index < slots.count ? index : nil
                if let currentSlot, currentSlot >= slotsInUse { slotsInUse = currentSlot + 1 }
                return
            }
            guard let index = currentSlot else { return }
            switch code {
            case ABS.mtPositionX: slots[index].setX(value)
            case ABS.mtPositionY: slots[index].setY(value)
            case ABS.mtTrackingID: slots[index].setTrackingID(value)
            case ABS.mtToolType: slots[index].tool = value
            default: break
            }
        case .unslotted:
            switch code {
            case ABS.mtPositionX: unslotted.setX(value)
            case ABS.mtPositionY: unslotted.setY(value)
            case ABS.mtTrackingID: unslotted.setTrackingID(value)
            case ABS.mtToolType: unslotted.setTool(value)
            default: break
            }
        case .singleTouch:
            switch code {
            case ABS.x: slots[0].setX(value)
            case ABS.y: slots[0].setY(value)
            default: break
            }
        case .none:
            break
        }
    }

    private mutating func handleKey(code: UInt16, value: Int32) {
        let down = value != 0
        switch code {
        case BTN.toolFinger: setToolFingers(1, down)
        case BTN.toolDoubleTap: setToolFingers(2, down)
        case BTN.toolTripleTap: setToolFingers(3, down)
        case BTN.toolQuadTap: setToolFingers(4, down)
        case BTN.toolQuintTap: setToolFingers(5, down)
        case BTN.toolPen, BTN.toolRubber:
            penDown = down
            if case .singleTouch = kind { slots[0].tool = down ? MTTool.pen : MTTool.finger }
        default:
            if code == BTN.touch { touchKeyDown = down }
            guard case .singleTouch = kind, code == touchKey || code == alternateTouchKey else { return }
            if down {
                // A repeated BTN_TOUCH 1 keeps the touch; a new one gets a fresh synthetic id.
                guard slots[0].occupancy != .occupied else { return }
                slots[0].setTrackingID(nextSyntheticTrackingID)
                nextSyntheticTrackingID = nextSyntheticTrackingID == Int32.max ? 0 : nextSyntheticTrackingID + 1
            } else {
                slots[0].setTrackingID(-1)
            }
        }
    }

    private mutating func setToolFingers(_ fingers: Int, _ down: Bool) {
        let bit = UInt8(1) << UInt8(fingers - 1)
        if down { toolFingerBits |= bit } else { toolFingerBits &= ~bit }
    }

    /// Fingers counted by the highest `BTN_TOOL_*` key down.
    private var toolFingerCount: Int {
        toolFingerBits == 0 ? 0 : 8 - toolFingerBits.leadingZeroBitCount
    }

    // MARK: - Frames

    private mutating func beginFrame(at time: Timestamp) {
        // Frame times never decrease, whatever the device's clock does.
        lastFrameTime = max(time, lastFrameTime)
        frame.time = lastFrameTime
        frame.contacts.removeAllFromEnd()
        if tracksSources { sources.removeAllFromEnd() }
    }

    private mutating func completeFrame(at time: Timestamp) -> Bool {
        beginFrame(at: time)
        var down = 0
        var ignoredDown = 0
        switch kind {
        case .slotted, .singleTouch:
            for index in 0..<slotsInUse {
                // Idle slots (most of them, most of the time: a 60-slot panel with two fingers
                // down) cost this check, not a call; those never addressed not even that.
                if slots[index].hasPending || slots[index].engagement != .none { commitSlot(index) }
                switch slots[index].engagement {
                case .none: break
                case .live: down += 1
                case .ignored: ignoredDown += 1
                }
            }
        case .unslotted:
            commitUnslotted()
            for contact in unslotted.tracked {
                switch contact.engagement {
                case .none: break
                case .live: down += 1
                case .ignored: ignoredDown += 1
                }
            }
        case .none:
            break
        }
        let toolFingersTouch = countsFingersByTool && (touchKeyDown || !hasTouchKey)
        frame.fingerCount = toolFingersTouch ? max(down, toolFingerCount - ignoredDown) : down
        let changed = frame.fingerCount != lastFingerCount
        lastFingerCount = frame.fingerCount
        return changed || !frame.contacts.isEmpty
    }

    /// Turns one slot's events since the last report into contacts of `frame`. Only for a
    /// slot with pending events or a contact (`completeFrame` skips the idle ones).
    private mutating func commitSlot(_ index: Int) {
        var slot = slots[index]
        defer {
            slot.committedX = slot.x
            slot.committedY = slot.y
            slot.clearPending()
            slots[index] = slot
        }

        if slot.endsCommitted {
            if case .live = slot.engagement {
                // With a new contact in the slot, this frame's positions are the new one's.
                let x = slot.begins ? slot.committedX : slot.x
                let y = slot.begins ? slot.committedY : slot.y
                append(slot.contactID, .ended, x: x, y: y, unobserved: slot.startedUnobserved, source: index)
            }
            slot.engagement = .none
        }
        if !slot.begins, slot.engagement == .none, slot.occupancy == .unknown, slot.positionReported {
            // Positions from a slot whose start we never saw: a contact already down.
            slot.occupancy = .occupied
            slot.trackingID = Slot.unknownTrackingID
            start(&slot, unobserved: true, source: index)
            return
        }
        if slot.begins {
            if slot.beginLifts {
                // Began and ended within one frame: delivered once, as `.ended` with an id the
                // engine has never seen (a zero-duration touch).
                if isFinger(slot.tool) && !penDown {
                    append(takeContactID(), .ended, x: slot.x, y: slot.y, unobserved: false, source: index)
                }
                slot.engagement = .none
            } else {
                start(&slot, unobserved: false, source: index)
            }
            return
        }
        if case .live = slot.engagement {
            if isFinger(slot.tool) && !penDown {
                append(slot.contactID, .moved, x: slot.x, y: slot.y, unobserved: slot.startedUnobserved, source: index)
            } else {
                // Became a palm (or a pen): cancelled once, then ignored until it lifts.
                append(slot.contactID, .cancelled, x: slot.x, y: slot.y, unobserved: slot.startedUnobserved, source: index)
                slot.engagement = .ignored
            }
        }
    }

    private mutating func start(_ slot: inout Slot, unobserved: Bool, source: Int) {
        guard isFinger(slot.tool) && !penDown else {
            slot.engagement = .ignored
            return
        }
        slot.contactID = takeContactID()
        slot.startedUnobserved = unobserved
        slot.engagement = .live
        append(slot.contactID, .began, x: slot.x, y: slot.y, unobserved: unobserved, source: source)
    }

    /// Matches this frame's protocol-A reports to the contacts of the last frame and emits them.
    private mutating func commitUnslotted() {
        unslotted.endReport()
        unslotted.match(millimetresPerUnit: mapper.millimetresPerUnit)
        // Contacts that found no report lifted.
        for previous in unslotted.tracked.indices where unslotted.matchOfTracked[previous] == nil {
            let contact = unslotted.tracked[previous]
            if case .live = contact.engagement {
                append(contact.contactID, .ended, x: contact.x, y: contact.y, unobserved: contact.startedUnobserved, source: previous)
            }
        }
        unslotted.next.removeAllFromEnd()
        for reportIndex in unslotted.reports.indices {
            let report = unslotted.reports[reportIndex]
            let finger = isFinger(report.tool)
            var contact: UnslottedContacts.Tracked
            if let previous = unslotted.matchOfReport[reportIndex] {
                contact = unslotted.tracked[previous]
                contact.x = report.x
                contact.y = report.y
                if case .live = contact.engagement {
                    if finger {
                        append(
                            contact.contactID, .moved, x: report.x, y: report.y, unobserved: contact.startedUnobserved, source: reportIndex)
                    } else {
                        append(
                            contact.contactID, .cancelled, x: report.x, y: report.y, unobserved: contact.startedUnobserved,
                            source: reportIndex)
                        contact.engagement = .ignored
                    }
                }
            } else {
                contact = UnslottedContacts.Tracked(
                    x: report.x, y: report.y, trackingID: report.trackingID, contactID: 0,
                    engagement: .ignored, startedUnobserved: unslotted.resyncing)
                if finger {
                    contact.contactID = takeContactID()
                    contact.engagement = .live
                    append(
                        contact.contactID, .began, x: report.x, y: report.y, unobserved: contact.startedUnobserved, source: reportIndex)
                }
            }
            unslotted.next.append(contact)
        }
        unslotted.finishFrame()
    }

    /// `SYN_DROPPED`: the device's state is lost. Every contact is cancelled now and the
    /// events up to the next `SYN_REPORT` are discarded; contacts found afterwards without a
    /// fresh start are `startedUnobserved`.
    private mutating func dropped(at time: Timestamp) -> Bool {
        beginFrame(at: time)
        appendLiveContactsCancelled()
        for index in slots.indices {
            slots[index].forget()
        }
        unslotted.forget()
        discardingUntilReport = true
        frame.fingerCount = 0
        lastFingerCount = 0
        return !frame.contacts.isEmpty
    }

    // MARK: - Helpers

    /// Adds a `.cancelled` contact to `frame` for every live contact (slotted or not), after
    /// discarding the unslotted contacts pending in the current, incomplete report.
    private mutating func appendLiveContactsCancelled() {
        for index in slots.indices {
            if case .live = slots[index].engagement {
                append(
                    slots[index].contactID, .cancelled, x: slots[index].committedX, y: slots[index].committedY,
                    unobserved: slots[index].startedUnobserved, source: index)
            }
        }
        unslotted.discardPending()
        for (index, contact) in unslotted.tracked.enumerated() where contact.engagement == .live {
            append(contact.contactID, .cancelled, x: contact.x, y: contact.y, unobserved: contact.startedUnobserved, source: index)
        }
    }

    @inline(__always)
    private func isFinger(_ tool: Int32) -> Bool {
        tool != MTTool.palm && tool != MTTool.pen
    }

    private mutating func takeContactID() -> UInt32 {
        let id = nextContactID
        nextContactID &+= 1
        return id
    }

    @inline(__always)
    private mutating func append(_ id: UInt32, _ phase: TouchPhase, x: Int32, y: Int32, unobserved: Bool, source: Int) {
        if tracksSources { sources.append(source) }
        frame.contacts.append(
            Contact(
                id: id, phase: phase, location: mapper.location(x: x, y: y),
                surfaceLocation: mapper.surfaceLocation(x: x, y: y), startedUnobserved: unobserved))
    }
}

/// Which of the kernel's ways of reporting touches a device uses.
enum InputProtocol: Sendable {
    /// Multitouch protocol B: `ABS_MT_SLOT` + `ABS_MT_TRACKING_ID`.
    case slotted
    /// Multitouch protocol A: contacts separated by `SYN_MT_REPORT`.
    case unslotted
    /// `ABS_X`/`ABS_Y` + `BTN_TOUCH`.
    case singleTouch
    /// No position axes: nothing to track.
    case none
}

/// What the engine has been told about a tracked contact.
enum Engagement: Sendable, Equatable {
    /// No contact.
    case none
    /// Began and not yet ended or cancelled.
    case live
    /// Down but not reported: a palm, a pen, or cancelled (palm, `cancelAll`) until it lifts.
    case ignored
}
