import GestureProtocol

/// What a pass-through device keeps for the daemon: touches that start in a reserved
/// region, with wake-swallow the touches that wake the screen, and what the app gets of
/// the others (`app-fingers`, `app-long-press`).
public struct PassThroughPolicy: Sendable, Hashable {
    /// A region with `reserve = true`: its name (for the log) and rectangle (normalised screen space).
    public struct ReservedArea: Sendable, Hashable {
        public var name: String
        public var rect: Rect

        public init(name: String, rect: Rect) {
            self.name = name
            self.rect = rect
        }
    }

    public var reserved: [ReservedArea]
    /// How device coordinates map to the screen (the same mapping the regions use).
    public var geometry: DeviceGeometry
    /// Wake touches are reserved too: every touch while the display is off
    /// (`PassThroughFilter.displayPower(_:)`) as long as the compositor can be made to wake
    /// (`WakeSignal`), every touch within `wakeGuard` after the display came back on, and,
    /// where the display's power cannot be read, the first touch after
    /// `PassThroughFilter.idle()`.
    public var wakeSwallow: Bool
    /// How long after the display came back on touches still belong to the same wake
    /// (`wake-guard`).
    public var wakeGuard: TimeSpan
    /// What the app gets of the touches that start where no region sets the app keys.
    public var app: AppTouchPolicy

    public init(
        reserved: [ReservedArea] = [], geometry: DeviceGeometry = DeviceGeometry(), wakeSwallow: Bool = false,
        wakeGuard: TimeSpan = .zero, app: AppTouchPolicy = AppTouchPolicy()
    ) {
        self.reserved = reserved
        self.geometry = geometry
        self.wakeSwallow = wakeSwallow
        self.wakeGuard = wakeGuard
        self.app = app
    }

    /// The reserved regions of an engine configuration (`[[region]] reserve = true`) and its
    /// regions' app keys over the device's (`app`).
    public init(
        engine: EngineConfiguration, geometry: DeviceGeometry, wakeSwallow: Bool, wakeGuard: TimeSpan = .zero,
        app: AppTouchSettings = AppTouchSettings()
    ) {
        self.init(
            reserved: engine.regions.filter(\.reserve).map { ReservedArea(name: $0.name, rect: $0.rect) },
            geometry: geometry, wakeSwallow: wakeSwallow, wakeGuard: wakeGuard, app: AppTouchPolicy(engine: engine, device: app))
    }
}

/// Whether a touch reaches the clone; decided once for the touch's life: at touch-down, or
/// for a touch `app-long-press = false` holds, at its first movement, its lift or the end of
/// the long-press duration.
public enum PassThroughDecision: Sendable, Hashable {
    case passes
    /// It started in this reserved region.
    case reservedByRegion(String)
    /// A touch that wakes the screen (wake-swallow): one while the display is off, one
    /// within the wake guard after it came back on, or, with the display's power unknown,
    /// the first after an idle period.
    case reservedAsWakeTouch
    /// It began when this many fingers of its touch sequence had reached the app (`app-fingers`).
    case reservedBeyondAppFingers(Int)
    /// Not decided yet: kept off the clone until it moves, lifts or rests (`app-long-press = false`).
    case held(HeldTouch)
    /// It rested past the long-press duration (`app-long-press = false`).
    case reservedAsLongPress
    /// It reaches the app as a pointer (`app-input = "pointer"`), read by these rules: kept
    /// off the clone, listed in `PassThroughFilter.pointerTouches`.
    case toPointer(AppTouchPolicy.PointerRules)
    /// Touch hygiene hid it at its touch-down (held back or dropped): decided when hygiene
    /// first shows it, so that a touch held back to tell it from a ghost can still be the
    /// wake touch, and a ghost never is.
    case pendingHygiene

    public var isReserved: Bool {
        switch self {
        case .passes, .held, .pendingHygiene, .toPointer: false
        case .reservedByRegion, .reservedAsWakeTouch, .reservedBeyondAppFingers, .reservedAsLongPress: true
        }
    }

    /// Whether the clone does not show the touch now (reserved, still held, or undecided).
    var keepsOffClone: Bool {
        switch self {
        case .passes: false
        case .held, .reservedByRegion, .reservedAsWakeTouch, .reservedBeyondAppFingers, .reservedAsLongPress, .pendingHygiene,
            .toPointer:
            true
        }
    }
}

/// The pass-through filter of one device: takes the grabbed device's events and says what
/// to write on its uinput clone, so the clone shows every touch except the reserved ones.
///
/// Pure and deterministic (no I/O, no clock). It models the original device's state as its
/// readers know it and the clone's state as written so far; at each `SYN_REPORT` it decides
/// every touch that began in the frame (reserved when its touch-down point lies in a
/// reserved region, or when it is the wake touch), computes what the clone should show
/// (passed touches as on the device, reserved slots empty, the single-touch emulation
/// `ABS_X`/`ABS_Y`/`ABS_PRESSURE`, `BTN_TOUCH` and `BTN_TOOL_*` describing only the passed
/// touches) and returns the difference as one frame. On `SYN_DROPPED` the partial frame is dropped and libevdev's resync delta applies as
/// a frame like any other, so the clone ends in the state of the visible touches.
///
/// Touch hygiene (`TouchHygiene`, in the device's pipeline) hides touches too: the caller
/// passes its `hidden` sources with each event and when they change at a deadline. A hidden
/// touch is kept off the clone like a reserved one; one that stops being hidden (a held
/// touch accepted) touches down on the clone then, where it is; one that becomes hidden (a
/// stuck touch ended) is lifted on the clone then, and stays off it until it lifts.
///
/// What the app gets (`AppTouchPolicy`): a touch that begins when `app-fingers` touches of
/// its touch sequence (from a touch-down with no other touch down on the device until no
/// touch is down) already reached the app is kept off the clone for its life; with
/// `app-long-press = false` a touch is held off it (`HeldTouch`) until it moves beyond the
/// tap's slop or lifts, and then revealed: one frame shows it down at its touch-down point,
/// the next where it is now (or lifted); one still within the slop at the long-press
/// duration is kept off for its life. Only a held touch is kept beyond the frame being read.
public struct PassThroughFilter {
    /// What to do after one input.
    public enum Action: Sendable, Hashable {
        case none
        /// Write these events on the clone, in order; they end with `SYN_REPORT`.
        case emit([InputEvent])
    }

    private enum State: Sendable, Hashable {
        /// Reading a frame.
        case reading
        /// After `SYN_DROPPED`, until its `SYN_REPORT`: nothing of the frame is kept.
        case discardingUntilReport
        /// `finish` was called: every clone touch is lifted and nothing more is written.
        case finished
    }

    private var state: State = .reading
    private let layout: EvdevLayout
    private let device: DeviceDescription
    private var policy: PassThroughPolicy
    private var mapper: CoordinateMapper
    /// The original device after the last complete frame, and with the frame being read.
    private var committed: EvdevState
    private var working: EvdevState
    /// What readers of the clone know, in the device's coordinates.
    private var clone: EvdevState
    /// A clone in screen orientation: the frames written on it have their positions mapped
    /// (`clone` stays in the device's coordinates); nil: the device's own coordinates.
    private let screen: ScreenOrientedClone?
    /// Protocol B: per slot, the decision for its touch (nil: no touch) and whether a new
    /// touch began in it in the frame being read.
    private var slotDecisions: [PassThroughDecision?]
    private var slotOrder: [UInt64]
    private var slotBegan: [Bool]
    /// Protocol A: contact matching shared with the tracker, and per matched contact its decision.
    private var unslotted = UnslottedContacts(capacity: ContactTracker.maximumUnslottedContacts)
    private var pendingReport: [InputEvent] = []
    private var frameReports: [ReportedContact] = []
    private var frameHasReports = false
    private var contactDecisions: [(decision: PassThroughDecision, order: UInt64)] = []
    /// Single touch: the decision for the touch down now.
    private var singleDecision: (decision: PassThroughDecision, order: UInt64)?
    /// Protocol A: the first frame after `SYN_DROPPED` (libevdev's delta has no contact list).
    private var resyncing = false
    /// Wake-swallow: the daemon went idle; the next touch-down is reserved when the
    /// display's power is unknown (a readable display decides by itself).
    private var wakeArmed = false
    /// Wake-swallow: whether the compositor can be made to wake for a touch swallowed while
    /// the display is off; where it cannot, such touches are forwarded.
    public private(set) var wakeSignal = WakeSignal.ready
    /// Wake-swallow: the display as the daemon last read it, and until when touches still
    /// belong to the last wake (the display's return plus the guard).
    private var display = DisplayPower.unknown
    private var wakeGuardUntil: Timestamp?
    /// `app-fingers`: the touches of the current touch sequence that were let through to the
    /// app (passed or held), counted at their touch-down.
    private var appFingersInSequence = 0
    /// The clone's emulated pointer (`ABS_X`/`ABS_Y`) stays where the last passed touch left
    /// it from a reserved touch until the next passed touch, so no reserved position leaks.
    private var pointerFrozen = false
    private var nextOrder: UInt64 = 0
    /// Events of the frame that carry no state (`EV_MSC`…), passed along with it.
    private var frameExtras: [InputEvent] = []
    /// The touches touch hygiene hides (slot, protocol-A contact of the frame, 0: single touch).
    private var hidden = HiddenTouches.none
    /// Receives one line per decision and state change; nil: no strings are built.
    public var log: ((String) -> Void)?
    /// How many touches were reserved as wake touches so far: the daemon tells whatever
    /// blanked the screen of each one, since the compositor never sees it.
    public private(set) var wakeTouchCount = 0
    /// How many touches that landed while the display read off were forwarded because the
    /// compositor cannot be made to wake (`wakeSignal` unavailable): the daemon logs each.
    public private(set) var forwardedWakeTouchCount = 0
    /// How long after a touch swallowed on a dark display the display must read on again;
    /// a touch that finds it still off later shows that the compositor did not wake on the
    /// daemon's signal, and wake-swallow fails safe (`WakeSignal.unavailable`).
    public static let wakeConfirmation = TimeSpan.seconds(2)

    /// `current`: the device's state now, when it is already open and may have touches
    /// down (nil: a device just opened, in its initial state). The clone is taken to be
    /// new: every touch down that passes is written to it at the first frame.
    /// `screen`: the clone reports screen-oriented positions (fixed for the clone's life: a
    /// new transform needs a new clone, whose axes describe it).
    public init(device: DeviceDescription, policy: PassThroughPolicy, current: EvdevSnapshot? = nil, screen: ScreenOrientedClone? = nil) {
        self.device = device
        self.screen = screen
        self.policy = policy
        layout = EvdevLayout(device)
        mapper = Self.mapper(device, policy.geometry)
        clone = EvdevState(layout, device)
        committed = clone
        if let current { committed.apply(current, layout) }
        working = committed
        slotDecisions = Array(repeating: nil, count: layout.slotCount)
        slotOrder = Array(repeating: 0, count: layout.slotCount)
        slotBegan = Array(repeating: false, count: layout.slotCount)
    }

    /// Whether the frame being read begins a touch that wake-swallow decides: the daemon
    /// then reads the display's power and passes it (`displayPower(_:)`) before the frame's
    /// `SYN_REPORT`. A protocol-A device matches its contacts only at `SYN_REPORT`, so any
    /// frame with contacts asks.
    public var wantsDisplayPower: Bool {
        guard policy.wakeSwallow, state == .reading else { return false }
        switch layout.mode {
        case .slotted:
            return working.slots.indices.contains {
                working.slots[$0].isDown && (slotBegan[$0] || slotDecisions[$0] == nil || slotDecisions[$0] == .pendingHygiene)
            }
        case .unslotted:
            return frameHasReports
        case .singleTouch(let touchKey):
            return (singleDecision == nil || singleDecision?.decision == .pendingHygiene)
                && (layout.keys.firstIndex(of: touchKey).map { working.keys[$0] != 0 } ?? false)
        }
    }

    /// Whether any touch down now is reserved.
    public var holdsReservedTouch: Bool {
        slotDecisions.contains { $0?.isReserved == true } || contactDecisions.contains { $0.decision.isReserved }
            || singleDecision?.decision.isReserved == true
    }

    /// Whether any touch down now is kept off the clone (reserved, held, or hidden by touch hygiene).
    private var hidesTouch: Bool {
        if slotDecisions.contains(where: { $0?.keepsOffClone == true }) || contactDecisions.contains(where: \.decision.keepsOffClone)
            || singleDecision?.decision.keepsOffClone == true
        {
            return true
        }
        guard !hidden.isEmpty else { return false }
        switch layout.mode {
        case .slotted: return slotDecisions.indices.contains { slotDecisions[$0] != nil && hidden.contains($0) }
        case .unslotted: return contactDecisions.indices.contains { hidden.contains($0) }
        case .singleTouch: return singleDecision != nil && hidden.contains(0)
        }
    }

    /// Whether the touch of `source` is kept off the clone.
    private func isHidden(_ decision: PassThroughDecision, source: Int) -> Bool {
        decision.keepsOffClone || hidden.contains(source)
    }

    // MARK: - Inputs

    /// One event of the original device; `hidden`: the touches touch hygiene hides after
    /// the pipeline has seen the same event (read at `SYN_REPORT`).
    public mutating func feed(_ event: InputEvent, hidden: HiddenTouches = .none) -> Action {
        if event.type == EV.syn && event.code == SYN.report { self.hidden = hidden }
        switch state {
        case .finished:
            return .none
        case .discardingUntilReport:
            if event.type == EV.syn && event.code == SYN.report { transition(to: .reading, "SYN_REPORT") }
            return .none
        case .reading:
            break
        }
        switch event.type {
        case EV.syn:
            switch event.code {
            case SYN.report: return completeFrame(at: event.time)
            case SYN.mtReport: endReport()
            case SYN.dropped: dropFrame()
            default: frameExtras.append(event)
            }
        case EV.abs:
            applyAxis(event)
        case EV.key:
            if let index = layout.keys.firstIndex(of: event.code) { working.keys[index] = event.value }
        default:
            frameExtras.append(event)
        }
        return .none
    }

    /// Touch hygiene changed what it hides between frames (at a deadline): the clone shows
    /// the device's last complete frame without the hidden touches.
    public mutating func hiddenTouchesChanged(_ hidden: HiddenTouches, at time: Timestamp) -> Action {
        guard hidden != self.hidden, state == .reading else { return .none }
        self.hidden = hidden
        log?("pass-through: touch hygiene changed what it hides")
        if decidePendingTouches(in: committed, at: time) && wakeArmed { wakeArmed = false }
        if hidesTouch { pointerFrozen = true } else if anyTouchDown { pointerFrozen = false }
        return write(cloneTarget(of: committed), at: time, extras: [])
    }

    /// The configuration changed: new reserved regions, geometry or wake-swallow apply to
    /// touches that begin from now on; touches down keep their decision. A screen-oriented
    /// clone keeps its transform (the caller makes a new clone for a new one).
    public mutating func reconfigure(_ policy: PassThroughPolicy) {
        self.policy = policy
        mapper = Self.mapper(device, policy.geometry)
        if !policy.wakeSwallow {
            wakeArmed = false
            wakeGuardUntil = nil
        }
        // A reload tries the wake signal again after the display once stayed off.
        if case .unavailable(.displayStayedOff) = wakeSignal { wakeSignal = .ready }
        log?("pass-through: reconfigured, \(policy.reserved.count) reserved regions, wake-swallow \(policy.wakeSwallow)")
    }

    /// The daemon went idle: with wake-swallow, the next touch-down is reserved.
    public mutating func idle() {
        guard policy.wakeSwallow, !wakeArmed else { return }
        wakeArmed = true
        log?("pass-through: idle, the next touch is the wake touch")
    }

    /// The display's power, read for the frame being read (`wantsDisplayPower`): touches
    /// that begin while it is off are wake touches, and so are those within the wake guard
    /// after `since`. Decisions already made stay.
    public mutating func displayPower(_ power: DisplayPower) {
        guard power != display else { return }
        display = power
        if case .on(let since?) = power {
            wakeGuardUntil = since + policy.wakeGuard
            // The compositor woke after the signal.
            if case .sent = wakeSignal { wakeSignal = .ready }
        }
        log?("pass-through: display \(power)")
    }

    /// The daemon cannot make the compositor wake (its wake key could not be made): from now
    /// on a touch that lands while the display reads off is forwarded, not swallowed.
    public mutating func wakeSignalUnavailable(_ failure: WakeSignalFailure) {
        wakeSignal = .unavailable(failure)
        log?("pass-through: the compositor cannot be woken (\(failure)): touches on a dark display are forwarded")
    }

    /// The clone is about to be destroyed (daemon stopping, device unplugged or no longer
    /// passed through): lifts every touch and releases every key on it. Afterwards every
    /// input is ignored.
    public mutating func finish(at time: Timestamp) -> Action {
        guard state != .finished else { return .none }
        transition(to: .finished, "finish")
        var target = clone
        for index in target.slots.indices { target.slots[index].trackingID = -1 }
        target.contacts = []
        for index in target.keys.indices { target.keys[index] = 0 }
        if let pressure = layout.pressure { target.axes[pressure] = 0 }
        return write(target, at: time, extras: [])
    }

    // MARK: - Reading a frame

    private mutating func applyAxis(_ event: InputEvent) {
        let code = event.code
        if code == ABS.mtSlot, case .slotted(let count) = layout.mode {
            working.currentSlot = event.value >= 0 && Int(event.value) < count ? Int(event.value) : -1
            return
        }
        if code >= ABS.mtSlot && code <= ABS.mtToolY {
            switch layout.mode {
            case .slotted:
                guard working.slots.indices.contains(working.currentSlot) else { return }
                let slot = working.currentSlot
                if code == ABS.mtTrackingID {
                    if event.value >= 0 && event.value != working.slots[slot].trackingID { slotBegan[slot] = true }
                    working.slots[slot].trackingID = event.value
                } else if let axis = layout.slotAxes.firstIndex(of: code) {
                    working.slots[slot].values[axis] = event.value
                }
            case .unslotted:
                switch code {
                case ABS.mtPositionX: unslotted.setX(event.value)
                case ABS.mtPositionY: unslotted.setY(event.value)
                case ABS.mtTrackingID: unslotted.setTrackingID(event.value)
                case ABS.mtToolType: unslotted.setTool(event.value)
                default: break
                }
                pendingReport.append(event)
                frameHasReports = true
            case .singleTouch:
                break
            }
            return
        }
        if let index = layout.axes.firstIndex(of: code) { working.axes[index] = event.value }
    }

    /// `SYN_MT_REPORT`: one protocol-A contact is complete (kept when the matcher keeps it).
    private mutating func endReport() {
        guard case .unslotted = layout.mode else { return }
        frameHasReports = true
        let before = unslotted.reports.count
        unslotted.endReport()
        if unslotted.reports.count > before { frameReports.append(ReportedContact(events: pendingReport)) }
        pendingReport.removeAll(keepingCapacity: true)
    }

    /// `SYN_DROPPED`: the frame so far is lost; discard it up to its `SYN_REPORT`.
    private mutating func dropFrame() {
        working = committed
        for index in slotBegan.indices { slotBegan[index] = false }
        unslotted.discardPending()
        pendingReport.removeAll(keepingCapacity: true)
        frameReports.removeAll(keepingCapacity: true)
        frameHasReports = false
        frameExtras.removeAll(keepingCapacity: true)
        resyncing = true
        transition(to: .discardingUntilReport, "SYN_DROPPED")
    }

    private mutating func completeFrame(at time: Timestamp) -> Action {
        // Held touches that lift or move in this frame are revealed first, in a frame of
        // their own built on the last one: each down at its touch-down point.
        var events: [InputEvent] = []
        let began: Bool
        // Touches hygiene showed only as they lift are decided first, where they were last
        // seen; one that passes is revealed with the held ones.
        var shownAtLift = false
        switch layout.mode {
        case .slotted:
            shownAtLift = decidePendingTouches(in: committed, at: time, liftingOnly: true)
            if let revealed = revealHeldSlots(at: time) ?? (shownAtLift ? committed : nil) { events = revealFrame(revealed, at: time) }
            began = decideSlots(at: time)
        case .unslotted:
            guard matchContacts() else {
                began = false
                break
            }
            shownAtLift = decidePendingTouches(in: committed, at: time, liftingOnly: true)
            if let revealed = revealHeldContacts(at: time) ?? (shownAtLift ? committed : nil) { events = revealFrame(revealed, at: time) }
            began = decideContacts(at: time)
        case .singleTouch(let touchKey):
            shownAtLift = decidePendingTouches(in: committed, at: time, liftingOnly: true)
            if let revealed = revealHeldSingleTouch(touchKey: touchKey, at: time) ?? (shownAtLift ? committed : nil) {
                events = revealFrame(revealed, at: time)
            }
            began = decideSingleTouch(touchKey: touchKey, at: time)
        }
        let shownByHygiene = decidePendingTouches(in: working, at: time) || shownAtLift
        // Only a touch the clone may show is the wake touch (`decide`).
        if (began || shownByHygiene) && wakeArmed { wakeArmed = false }
        if hidesTouch { pointerFrozen = true } else if anyTouchDown { pointerFrozen = false }
        if !anyTouchDown { appFingersInSequence = 0 }
        resyncing = false
        committed = working
        let target = cloneTarget(of: committed)
        let extras = frameExtras
        frameExtras.removeAll(keepingCapacity: true)
        events += frame(to: target, at: time, extras: extras)
        return events.isEmpty ? .none : .emit(events)
    }

    /// Writes the difference from the clone to `target` as one frame; nothing when equal.
    private mutating func write(_ target: EvdevState, at time: Timestamp, extras: [InputEvent]) -> Action {
        let events = frame(to: target, at: time, extras: extras)
        return events.isEmpty ? .none : .emit(events)
    }

    /// The events that take the clone to `target`, ending with `SYN_REPORT` (none when
    /// equal); the clone then is `target`.
    private mutating func frame(to target: EvdevState, at time: Timestamp, extras: [InputEvent]) -> [InputEvent] {
        var events: [InputEvent]
        if let screen {
            // The slot readers have current follows what was written, and two positions
            // of the device may map to one on the screen.
            var mapped = screen.states(from: clone, to: target, layout)
            events = mapped.from.events(to: mapped.to, layout, at: time)
            mapped.from.adopt(mapped.to, layout)
            clone = target
            clone.currentSlot = mapped.from.currentSlot
        } else {
            events = clone.events(to: target, layout, at: time)
            clone.adopt(target, layout)
        }
        guard !events.isEmpty else { return [] }
        events += extras
        events.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
        return events
    }

    /// The frame that shows revealed touches down at their touch-down points: `device` is
    /// the device's last frame with them there, their decisions already `passes`.
    private mutating func revealFrame(_ device: EvdevState, at time: Timestamp) -> [InputEvent] {
        if !hidesTouch { pointerFrozen = false }
        return frame(to: cloneTarget(of: device, emulatingPointer: true), at: time, extras: [])
    }

    // MARK: - Held touches (app-long-press = false)

    /// Protocol B: what became of each held touch in this frame; the last frame with the
    /// revealed ones at their touch-down points, nil when none is revealed.
    private mutating func revealHeldSlots(at time: Timestamp) -> EvdevState? {
        var revealed: EvdevState?
        for index in slotDecisions.indices {
            guard case .held(let hold) = slotDecisions[index] else { continue }
            let now = working.slots[index]
            // A new tracking id in the slot means the held touch lifted.
            let down = now.isDown && now.trackingID == committed.slots[index].trackingID
            let position = down ? (layout.slotX.map { now.values[$0] } ?? 0, layout.slotY.map { now.values[$0] } ?? 0) : nil
            var decision = PassThroughDecision.held(hold)
            let isRevealed = resolve(hold, at: time, position: position, &decision, touch: "slot \(index)")
            slotDecisions[index] = decision
            guard isRevealed, case .slot(let origin) = hold.origin else { continue }
            if revealed == nil { revealed = committed }
            revealed?.slots[index] = origin
        }
        return revealed
    }

    /// Protocol A (after `matchContacts`): as `revealHeldSlots`, a contact no report of this
    /// frame continues having lifted.
    private mutating func revealHeldContacts(at time: Timestamp) -> EvdevState? {
        var revealed: EvdevState?
        for index in contactDecisions.indices {
            guard case .held(let hold) = contactDecisions[index].decision else { continue }
            let report = unslotted.reports.indices.first { unslotted.matchOfReport[$0] == index }.map { unslotted.reports[$0] }
            guard
                resolve(
                    hold, at: time, position: report.map { ($0.x, $0.y) }, &contactDecisions[index].decision, touch: "contact \(index)"),
                case .contact(let origin) = hold.origin, committed.contacts.indices.contains(index)
            else { continue }
            if revealed == nil { revealed = committed }
            revealed?.contacts[index] = origin
        }
        return revealed
    }

    /// Single touch: as `revealHeldSlots`, the touch key going up is the lift.
    private mutating func revealHeldSingleTouch(touchKey: UInt16, at time: Timestamp) -> EvdevState? {
        guard case .held(let hold) = singleDecision?.decision else { return nil }
        let down = layout.keys.firstIndex(of: touchKey).map { working.keys[$0] != 0 } ?? false
        let position = down ? (layout.x.map { working.axes[$0] } ?? 0, layout.y.map { working.axes[$0] } ?? 0) : nil
        var decision = PassThroughDecision.held(hold)
        let isRevealed = resolve(hold, at: time, position: position, &decision, touch: "touch")
        singleDecision?.decision = decision
        guard isRevealed, case .singleTouch(let axes) = hold.origin else { return nil }
        var revealed = committed
        revealed.axes = axes
        return revealed
    }

    /// Applies what became of `hold` to its `decision`; true when it is revealed now.
    private func resolve(
        _ hold: HeldTouch, at time: Timestamp, position: (x: Int32, y: Int32)?, _ decision: inout PassThroughDecision, touch: String
    ) -> Bool {
        switch hold.outcome(at: time, position: position, millimetresPerUnit: mapper.millimetresPerUnit) {
        case .held:
            return false
        case .revealed:
            decision = .passes
            log?("pass-through: held \(touch) \(position == nil ? "lifted" : "moved") → revealed")
            return true
        case .rested:
            decision = .reservedAsLongPress
            log?("pass-through: held \(touch) rested past the long-press duration → \(decision)")
            return false
        }
    }

    // MARK: - Touches that reach the app as a pointer

    /// The touches down now that reach the app as a pointer (`app-input = "pointer"`), where
    /// they are after the last complete frame, without those touch hygiene hides: the input
    /// of the device's `PointerEmulator`, read after each frame and each change of what
    /// hygiene hides. Empty once `finish` was called.
    public var pointerTouches: [PointerTouch] {
        guard state != .finished else { return [] }
        var touches: [PointerTouch] = []
        func add(order: UInt64, x: Int32, y: Int32, rules: AppTouchPolicy.PointerRules) {
            touches.append(
                PointerTouch(id: order, location: mapper.location(x: x, y: y), surface: mapper.surfaceLocation(x: x, y: y), rules: rules))
        }
        switch layout.mode {
        case .slotted:
            for index in slotDecisions.indices where committed.slots[index].isDown && !hidden.contains(index) {
                guard case .toPointer(let rules) = slotDecisions[index] else { continue }
                let values = committed.slots[index].values
                add(order: slotOrder[index], x: layout.slotX.map { values[$0] } ?? 0, y: layout.slotY.map { values[$0] } ?? 0, rules: rules)
            }
        case .unslotted:
            for index in contactDecisions.indices where committed.contacts.indices.contains(index) && !hidden.contains(index) {
                guard case .toPointer(let rules) = contactDecisions[index].decision else { continue }
                let contact = committed.contacts[index]
                func value(_ code: UInt16) -> Int32 { contact.events.last { $0.code == code }?.value ?? 0 }
                add(order: contactDecisions[index].order, x: value(ABS.mtPositionX), y: value(ABS.mtPositionY), rules: rules)
            }
        case .singleTouch:
            guard let single = singleDecision, case .toPointer(let rules) = single.decision, !hidden.contains(0) else { break }
            add(order: single.order, x: layout.x.map { committed.axes[$0] } ?? 0, y: layout.y.map { committed.axes[$0] } ?? 0, rules: rules)
        }
        return touches
    }

    // MARK: - Decisions

    /// Decides the touch-down at `x`, `y` (device units) of `source` in the frame at `time`;
    /// `origin`: the touch as it is now. A touch touch hygiene hides at its touch-down (a
    /// ghost, a bounce, one held back) is decided when hygiene shows it, if ever: until
    /// then it is not the wake touch, and a dropped one wakes nothing.
    private mutating func decide(
        x: Int32, y: Int32, source: Int, touch: String, at time: Timestamp, origin: HeldTouch.Origin
    ) -> PassThroughDecision {
        if hidden.contains(source) {
            log?("pass-through: \(touch) at (\(x), \(y)) → hidden by touch hygiene, decided when it shows")
            return .pendingHygiene
        }
        let decision: PassThroughDecision
        let point = mapper.location(x: x, y: y)
        if isWakeTouch(at: time) {
            decision = .reservedAsWakeTouch
            wakeTouchCount += 1
            if display == .off, case .ready = wakeSignal { wakeSignal = .sent(at: time) }
        } else {
            // The innermost (smallest) reserved region names the decision.
            let areas = policy.reserved.filter { $0.rect.contains(point) }
            decision =
                areas.min { $0.rect.area < $1.rect.area }.map { .reservedByRegion($0.name) }
                ?? admitToApp(at: point, x: x, y: y, time: time, origin: origin)
        }
        log?("pass-through: \(touch) at (\(x), \(y)) → \(decision)")
        return decision
    }

    /// Whether a touch beginning at `time` wakes the screen: one while the display is off
    /// (unless the compositor cannot be made to wake: then it is forwarded, fail-safe), one
    /// within the guard of the last wake, or the first after idle when nothing says whether
    /// the display is on.
    private mutating func isWakeTouch(at time: Timestamp) -> Bool {
        guard policy.wakeSwallow else { return false }
        switch display {
        case .off:
            if case .sent(let sent) = wakeSignal, time - sent >= Self.wakeConfirmation {
                wakeSignal = .unavailable(.displayStayedOff(time - sent))
                log?("pass-through: the display still reads off \(time - sent) after a wake touch: the compositor did not wake")
            }
            guard case .unavailable = wakeSignal else { return true }
            forwardedWakeTouchCount += 1
            return false
        case .on:
            return wakeGuardUntil.map { time < $0 } ?? false
        case .unknown:
            return wakeArmed || (wakeGuardUntil.map { time < $0 } ?? false)
        }
    }

    /// What the app gets of a touch no reservation keeps (`AppTouchPolicy`): nothing beyond
    /// `app-fingers` touches of a sequence, and with `app-long-press = false` the touch held.
    private mutating func admitToApp(at point: Point, x: Int32, y: Int32, time: Timestamp, origin: HeldTouch.Origin)
        -> PassThroughDecision
    {
        let admission = policy.app.admission(at: point)
        if let pointer = admission.pointer { return .toPointer(pointer) }
        if let limit = admission.fingers, appFingersInSequence >= limit { return .reservedBeyondAppFingers(limit) }
        appFingersInSequence += 1
        guard let limits = admission.hold else { return .passes }
        return .held(HeldTouch(since: time, x: x, y: y, limits: limits, origin: origin))
    }

    /// Touches hygiene hid at their touch-down and shows now (`pendingHygiene`) are decided
    /// now, where they are in `device`; true when any was.
    ///
    /// `liftingOnly`: only those that lift (or are replaced) in the frame being completed,
    /// decided where they were last seen (`device` is then `committed`). Hygiene holds a touch
    /// at its touch-down (`shortest-contact`, `hold-duration`) and shows it at a deadline; when
    /// the daemon reads the touch-down and the lift together, or its timer runs late, the
    /// deadline passes in the frame that lifts the touch, and hygiene shows it and ends it at
    /// once. Decided so, the app still gets the tap and a wake touch still wakes. One hygiene
    /// dropped stays in `hidden` in its last frame, and is never decided.
    private mutating func decidePendingTouches(in device: EvdevState, at time: Timestamp, liftingOnly: Bool = false) -> Bool {
        var decided = false
        let shown = liftingOnly ? ", shown as it lifts" : ""
        switch layout.mode {
        case .slotted:
            for index in slotDecisions.indices where slotDecisions[index] == .pendingHygiene && !hidden.contains(index) {
                let slot = device.slots[index]
                guard slot.isDown else { continue }
                if liftingOnly {
                    let now = working.slots[index]
                    guard !now.isDown || now.trackingID != slot.trackingID else { continue }
                }
                slotDecisions[index] = decide(
                    x: layout.slotX.map { slot.values[$0] } ?? 0, y: layout.slotY.map { slot.values[$0] } ?? 0, source: index,
                    touch: "slot \(index) tracking id \(slot.trackingID)\(shown)", at: time, origin: .slot(slot))
                decided = true
            }
        case .unslotted:
            for index in contactDecisions.indices
            where contactDecisions[index].decision == .pendingHygiene && !hidden.contains(index) && device.contacts.indices.contains(index)
            {
                // After `matchContacts`: a contact no report of this frame continues lifts.
                if liftingOnly && unslotted.reports.indices.contains(where: { unslotted.matchOfReport[$0] == index }) { continue }
                let contact = device.contacts[index]
                func value(_ code: UInt16) -> Int32 { contact.events.last { $0.code == code }?.value ?? 0 }
                contactDecisions[index].decision = decide(
                    x: value(ABS.mtPositionX), y: value(ABS.mtPositionY), source: index, touch: "contact \(index)\(shown)", at: time,
                    origin: .contact(contact))
                decided = true
            }
        case .singleTouch(let touchKey):
            guard singleDecision?.decision == .pendingHygiene, !hidden.contains(0) else { break }
            if liftingOnly {
                guard let key = layout.keys.firstIndex(of: touchKey), device.keys[key] != 0, working.keys[key] == 0 else { break }
            }
            let decision = decide(
                x: layout.x.map { device.axes[$0] } ?? 0, y: layout.y.map { device.axes[$0] } ?? 0, source: 0, touch: "touch\(shown)",
                at: time,
                origin: .singleTouch(axes: device.axes))
            singleDecision?.decision = decision
            decided = true
        }
        return decided
    }

    private mutating func takeOrder() -> UInt64 {
        nextOrder += 1
        return nextOrder
    }

    /// Protocol B: every slot whose touch began in this frame (or that is down undecided,
    /// as after the daemon started mid-touch) gets its decision; emptied slots lose theirs.
    private mutating func decideSlots(at time: Timestamp) -> Bool {
        var began = false
        for index in working.slots.indices {
            let slot = working.slots[index]
            if !slot.isDown {
                slotDecisions[index] = nil
            } else if slotBegan[index] || slotDecisions[index] == nil {
                slotDecisions[index] = decide(
                    x: layout.slotX.map { slot.values[$0] } ?? 0, y: layout.slotY.map { slot.values[$0] } ?? 0,
                    source: index, touch: "slot \(index) tracking id \(slot.trackingID)", at: time, origin: .slot(slot))
                slotOrder[index] = takeOrder()
                if !hidden.contains(index) { began = true }
            }
            slotBegan[index] = false
        }
        return began
    }

    /// Protocol A: matches this frame's reports to the last frame's contacts (as the tracker
    /// matches them); false for libevdev's resync delta, which never carries protocol-A
    /// lists (any other frame without a report lifts every contact).
    private mutating func matchContacts() -> Bool {
        if !frameHasReports && resyncing { return false }
        endReport()
        unslotted.match(millimetresPerUnit: mapper.millimetresPerUnit)
        return true
    }

    /// Protocol A, after `matchContacts`: a continued contact keeps its decision, a new one
    /// is decided.
    private mutating func decideContacts(at time: Timestamp) -> Bool {
        var decisions: [(decision: PassThroughDecision, order: UInt64)] = []
        var began = false
        unslotted.next.removeAll(keepingCapacity: true)
        for reportIndex in unslotted.reports.indices {
            let report = unslotted.reports[reportIndex]
            if let previous = unslotted.matchOfReport[reportIndex], contactDecisions.indices.contains(previous) {
                decisions.append(contactDecisions[previous])
            } else {
                let origin = HeldTouch.Origin.contact(
                    frameReports.indices.contains(reportIndex) ? frameReports[reportIndex] : ReportedContact(events: []))
                decisions.append(
                    (
                        decide(x: report.x, y: report.y, source: reportIndex, touch: "contact \(reportIndex)", at: time, origin: origin),
                        takeOrder()
                    ))
                if !hidden.contains(reportIndex) { began = true }
            }
            unslotted.next.append(
                UnslottedContacts.Tracked(
                    x: report.x, y: report.y, trackingID: report.trackingID, contactID: 0, engagement: .live, startedUnobserved: false))
        }
        unslotted.finishFrame()
        contactDecisions = decisions
        working.contacts = frameReports
        frameReports.removeAll(keepingCapacity: true)
        frameHasReports = false
        return began
    }

    /// Single touch: the touch key going down is the touch-down, decided at `ABS_X`/`ABS_Y`.
    private mutating func decideSingleTouch(touchKey: UInt16, at time: Timestamp) -> Bool {
        let down = layout.keys.firstIndex(of: touchKey).map { working.keys[$0] != 0 } ?? false
        guard down else {
            singleDecision = nil
            return false
        }
        guard singleDecision == nil else { return false }
        let x = layout.x.map { working.axes[$0] } ?? 0
        let y = layout.y.map { working.axes[$0] } ?? 0
        singleDecision = (decide(x: x, y: y, source: 0, touch: "touch", at: time, origin: .singleTouch(axes: working.axes)), takeOrder())
        return !hidden.contains(0)
    }

    // MARK: - What the clone shows

    /// Whether the original device has any touch down after the frame being read.
    private var anyTouchDown: Bool {
        switch layout.mode {
        case .slotted: working.slots.contains(where: \.isDown)
        case .unslotted: !contactDecisions.isEmpty
        case .singleTouch: singleDecision != nil
        }
    }

    /// The original device as `device` has it, without the reserved, held and hidden
    /// touches; `emulatingPointer`: the single-touch emulation is computed from the touches
    /// shown even when none is kept off (as when `device` is not the device's own frame).
    private func cloneTarget(of device: EvdevState, emulatingPointer: Bool = false) -> EvdevState {
        var target = device
        target.currentSlot = clone.currentSlot
        // An empty slot's axes mean nothing to readers: the clone's stay as they are, so the
        // last positions of a reserved touch are never written there.
        for index in target.slots.indices where !target.slots[index].isDown {
            target.slots[index].values = clone.slots[index].values
        }
        guard hidesTouch || emulatingPointer else {
            if pointerFrozen {
                for index in [layout.x, layout.y].compactMap({ $0 }) { target.axes[index] = clone.axes[index] }
            }
            return target
        }
        // Points of the passed touches, oldest first: (x, y, pressure).
        var passed: [(order: UInt64, x: Int32?, y: Int32?, pressure: Int32?)] = []
        switch layout.mode {
        case .slotted:
            for index in target.slots.indices {
                guard let decision = slotDecisions[index] else { continue }
                if isHidden(decision, source: index) {
                    // The slot stays empty on the clone, its axes as the clone last had them.
                    target.slots[index] = SlotState(trackingID: -1, values: clone.slots[index].values)
                } else {
                    let values = target.slots[index].values
                    passed.append(
                        (
                            slotOrder[index], layout.slotX.map { values[$0] }, layout.slotY.map { values[$0] },
                            layout.slotPressure.map { values[$0] }
                        ))
                }
            }
        case .unslotted:
            target.contacts = []
            for (index, contact) in device.contacts.enumerated() where !isHidden(contactDecisions[index].decision, source: index) {
                target.contacts.append(contact)
                func value(_ code: UInt16) -> Int32? { contact.events.last { $0.code == code }?.value }
                passed.append((contactDecisions[index].order, value(ABS.mtPositionX), value(ABS.mtPositionY), value(ABS.mtPressure)))
            }
        case .singleTouch:
            // A touch the clone shows is as on the device (its own emulation).
            if let single = singleDecision, !isHidden(single.decision, source: 0) { return target }
            // The one touch is reserved, held or hidden: no key down, pressure 0, the pointer where it was.
            for index in layout.keys.indices where EvdevLayout.digitizerKeys.contains(layout.keys[index]) || layout.keys[index] == BTN.left
            {
                target.keys[index] = 0
            }
            for index in [layout.x, layout.y].compactMap({ $0 }) { target.axes[index] = clone.axes[index] }
            if let pressure = layout.pressure { target.axes[pressure] = 0 }
            return target
        }
        emulatePointer(&target, passed.sorted { $0.order < $1.order })
        return target
    }

    /// The single-touch emulation of a multitouch device over the passed touches only, as the
    /// kernel's `input_mt_report_pointer_emulation` would report it without the reserved ones.
    private func emulatePointer(_ target: inout EvdevState, _ passed: [(order: UInt64, x: Int32?, y: Int32?, pressure: Int32?)]) {
        func setKey(_ code: UInt16, _ down: Bool) {
            if let index = layout.keys.firstIndex(of: code) { target.keys[index] = down ? 1 : 0 }
        }
        setKey(BTN.touch, !passed.isEmpty)
        for (fingers, code) in EvdevLayout.fingerCountKeys.enumerated() {
            let isLast = fingers == EvdevLayout.fingerCountKeys.count - 1
            setKey(code, isLast ? passed.count >= fingers + 1 : passed.count == fingers + 1)
        }
        if let oldest = passed.first {
            if let index = layout.x, let value = oldest.x { target.axes[index] = value }
            if let index = layout.y, let value = oldest.y { target.axes[index] = value }
            if let index = layout.pressure, let value = oldest.pressure { target.axes[index] = value }
        } else {
            for index in [layout.x, layout.y].compactMap({ $0 }) { target.axes[index] = clone.axes[index] }
            if let index = layout.pressure { target.axes[index] = 0 }
        }
    }

    private mutating func transition(to new: State, _ input: StaticString) {
        log?("pass-through: \(state) → \(input) → \(new)")
        state = new
    }

    private static func mapper(_ device: DeviceDescription, _ geometry: DeviceGeometry) -> CoordinateMapper {
        let axes = TrackedAxes(device: device)
        let size = DeviceSize(axes: axes, geometry: geometry, fallbackDiagonal: SurfaceGeometry.fallbackDiagonal(for: device))
        return CoordinateMapper(axes: axes, size: size, geometry: geometry)
    }
}
