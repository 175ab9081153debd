import GestureProtocol

/// `phantom` in `[touch]`: what to do with touches that recur at one point on a fixed period.
public enum PhantomPolicy: String, Sendable, Hashable, CaseIterable {
    case off
    /// From the fourth touch of a series on, drop them.
    case suppress
}

/// The `[touch]` table (and its keys in `[[device]]`): touch hygiene and touch
/// accommodations. Every filter is off at zero (`phantom = off`), the default.
public struct TouchHygieneSettings: Sendable, Hashable {
    /// A touch starting this soon after the previous lift, within the tap slop of it, is a bounce.
    public var debounce: TimeSpan = .zero
    /// A touch starting this soon after the previous lift, anywhere, is dropped.
    public var ignoreRepeat: TimeSpan = .zero
    /// A touch counts only once it has stayed within the tap slop this long.
    public var holdDuration: TimeSpan = .zero
    /// A contact down this long without moving beyond the tap slop is ended.
    public var stuckAfter: TimeSpan = .zero
    public var phantom: PhantomPolicy = .off

    public init(
        debounce: TimeSpan = .zero, ignoreRepeat: TimeSpan = .zero, holdDuration: TimeSpan = .zero, stuckAfter: TimeSpan = .zero,
        phantom: PhantomPolicy = .off
    ) {
        self.debounce = debounce
        self.ignoreRepeat = ignoreRepeat
        self.holdDuration = holdDuration
        self.stuckAfter = stuckAfter
        self.phantom = phantom
    }

    /// Whether any filter is on (when none is, the pipeline bypasses `TouchHygiene` entirely).
    public var isActive: Bool {
        debounce != .zero || ignoreRepeat != .zero || holdDuration != .zero || stuckAfter != .zero || phantom != .off
    }
}

/// Why touch hygiene dropped or ended a touch (the `reason` of the metrics and the log).
public enum TouchHygieneReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// `debounce`: it started right after a lift, where the lift was.
    case bounce
    /// `ignore-repeat`: it started right after a lift.
    case `repeat`
    /// `hold-duration`: it lifted or moved away before the hold duration.
    case tooShort = "too-short"
    /// `phantom = "suppress"`: the fourth or later touch of a periodic series at one point.
    case phantom
    /// `stuck-after`: down and motionless too long; ended.
    case stuck

    /// Position in `allCases` (metrics arrays are indexed by it).
    public var order: Int {
        switch self {
        case .bounce: 0
        case .repeat: 1
        case .tooShort: 2
        case .phantom: 3
        case .stuck: 4
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.order < b.order }
}

/// One touch touch hygiene dropped or ended, for the metrics and the log.
public struct TouchFiltered: Sendable, Hashable {
    public var time: Timestamp
    /// The tracker's contact id.
    public var contact: UInt32
    public var reason: TouchHygieneReason
    /// Where the touch was (normalised screen space).
    public var location: Point
    /// Phantoms: the series' period, set on the first touch of a series that is dropped
    /// (the log says so once per series); nil otherwise.
    public var seriesPeriod: TimeSpan?

    public init(time: Timestamp, contact: UInt32, reason: TouchHygieneReason, location: Point, seriesPeriod: TimeSpan? = nil) {
        self.time = time
        self.contact = contact
        self.reason = reason
        self.location = location
        self.seriesPeriod = seriesPeriod
    }
}

/// The touches whose sources (protocol-B slot, protocol-A contact of the frame, 0 for the
/// single touch) touch hygiene hides: the pass-through filter keeps them off the clone. A
/// fixed bit set (no allocation), sources 0…255.
public struct HiddenTouches: Sendable, Hashable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// Sources beyond this are never hidden.
    public static let capacity = 256

    public init() {}

    /// Nothing hidden.
    public static var none: HiddenTouches { HiddenTouches() }

    public var isEmpty: Bool { words.0 | words.1 | words.2 | words.3 == 0 }

    public func contains(_ source: Int) -> Bool {
        guard source >= 0 && source < Self.capacity else { return false }
        let bit = UInt64(1) << UInt64(source % 64)
        switch source / 64 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    public mutating func insert(_ source: Int) {
        guard source >= 0 && source < Self.capacity else { return }
        let bit = UInt64(1) << UInt64(source % 64)
        switch source / 64 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    public static func == (a: HiddenTouches, b: HiddenTouches) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

/// Touch hygiene and touch accommodations for one device: decides, per contact of the
/// tracker, whether the engine, the `touch` lines and the pass-through clone see it.
///
/// A contact *passes*, is *held* (`hold-duration`: not begun yet), is *dropped* whole
/// (bounce, repeat, too-short, phantom: nothing of it is seen), or is *stuck* (`stuck-after`:
/// ended `cancelled` and ignored until the hardware lifts it). The decision for bounce,
/// repeat and phantom is made at touch-down; held and stuck ones change at deadlines, which
/// `nextDeadline` returns and `advance(to:)` fires. Pure and clock-free, as the engine; see
/// docs/gestures.md ("Touch hygiene") for the rules and the diagram.
///
/// Each contact keeps the settings it started with (a reload changes only touches that
/// begin afterwards): a contact cancelled by `SYN_DROPPED` or by a reload leaves its record
/// at its source, and the contact the tracker finds there afterwards (unobserved) takes it
/// over. Allocation-free once its storage has grown to the contacts down at once.
public struct TouchHygiene {
    private enum Verdict: Hashable, CustomStringConvertible {
        case passes
        /// Held back until `deadline` (hold-duration).
        case held(deadline: Timestamp)
        case dropped(TouchHygieneReason)
        /// Ended by stuck-after; ignored until it lifts.
        case stuck

        var isHidden: Bool {
            switch self {
            case .passes: false
            case .held, .dropped, .stuck: true
            }
        }

        var description: String {
            switch self {
            case .passes: "passes"
            case .held: "held"
            case .dropped(let reason): "dropped (\(reason.rawValue))"
            case .stuck: "stuck"
            }
        }
    }

    private struct Record {
        var contact: UInt32
        var source: Int
        var verdict: Verdict
        var startTime: Timestamp
        var start: SurfacePoint
        var position: SurfacePoint
        var location: Point
        var unobserved: Bool
        /// Where and since when it has stayed within the slop (stuck-after).
        var anchor: SurfacePoint
        var anchorTime: Timestamp
        /// stuck-after as it was when the touch began.
        var stuckAfter: TimeSpan
        /// Moved more than `phantomDistance` from its start.
        var movedFromStart = false

        var deadline: Timestamp? {
            switch verdict {
            case .held(let deadline): deadline
            case .passes: stuckAfter == .zero ? nil : anchorTime + stuckAfter
            case .dropped, .stuck: nil
            }
        }
    }

    /// A periodic series of short motionless touches at one point (phantom = suppress).
    private struct PhantomSeries {
        var point = SurfacePoint.zero
        /// Confirmed members (touches that lifted short and motionless).
        var members = 0
        var lastDown = Timestamp.zero
        /// The last interval between downs (members ≥ 2).
        var period = TimeSpan.zero
        /// The touch down now that joins the series if it lifts short and motionless.
        var candidate: (contact: UInt32, down: Timestamp, interval: TimeSpan)?
        /// A dropped phantom of this series has been reported (the log line of the series).
        var reported = false
    }

    public let settings: TouchHygieneSettings
    private let filtersOn: Bool
    /// The tap slop: bounce distance, hold-duration and stuck-after motion.
    public let slop: Length
    /// The frame for the engine after `process` or `advance(to:)`; valid until the next call.
    public private(set) var frame = TouchFrame(time: .zero)
    /// The sources whose touch is hidden now (for the pass-through filter).
    public private(set) var hidden = HiddenTouches.none
    private var records: [Record] = []
    /// Records of contacts cancelled (SYN_DROPPED, palm, reload), by source, for the
    /// unobserved contact found there afterwards.
    private var orphans: [Record] = []
    private var lastLift: (time: Timestamp, point: SurfacePoint)?
    private var series = PhantomSeries()
    private var visibleDown = 0
    private var lastFingerCount = 0
    /// Receives every decision as "hygiene contact N: old → input → new" (nil: no strings built).
    public var log: ((String) -> Void)?

    /// Phantoms repeat within this distance of the series' first point.
    public static let phantomDistance = Length.millimetres(1.0)
    /// Successive intervals of a phantom series differ by at most this fraction.
    public static let phantomPeriodTolerance = 0.02
    /// A phantom is shorter than this (a tap, not a press).
    public static let phantomMaximumDuration = TimeSpan.milliseconds(500)
    /// The fourth touch of a series is the first dropped (three are needed to see a period
    /// twice; a person cannot be told from a phantom sooner).
    public static let phantomFirstDropped = 4
    /// Contacts one device has down at once without the storage growing.
    static let reservedContacts = 32

    /// - Parameters:
    ///   - settings: the filters (all off: `process` passes every frame through unchanged).
    ///   - slop: the tap slop (mm).
    ///   - inheriting: the hygiene this one replaces (a reload): contacts down keep the
    ///     decisions and settings they began with.
    public init(settings: TouchHygieneSettings, slop: Length, inheriting previous: TouchHygiene? = nil) {
        self.settings = settings
        self.slop = slop
        filtersOn = settings.isActive
        records.reserveCapacity(Self.reservedContacts)
        orphans.reserveCapacity(Self.reservedContacts)
        frame.contacts.reserveCapacity(Self.reservedContacts)
        if let previous {
            orphans.append(contentsOf: previous.orphans)
            for record in previous.records { adopt(orphan: record) }
            lastLift = previous.lastLift
        }
        refresh()
    }

    /// Whether any filter is on, or a contact from before a reload still has a decision.
    /// Kept up to date by every input: read before every event (through
    /// `DevicePipeline.nextDeadline`, inlined into other modules), it must cost one load, and
    /// a call into this module there copied the whole struct.
    @inlinable public var isActive: Bool { engaged }

    /// The earliest deadline (a held touch's acceptance, a stuck timer), nil if none.
    @inlinable public var nextDeadline: Timestamp? { earliestDeadline }

    @usableFromInline var engaged = false
    @usableFromInline var earliestDeadline: Timestamp?

    // MARK: - Inputs

    /// Filters one frame of the tracker (`sources[i]` is the source of `input.contacts[i]`)
    /// into `frame`; returns whether the engine has a frame to see. Call `advance(to:)` up to
    /// the frame's time first.
    public mutating func process(
        _ input: TouchFrame, sources: [Int], report: (TouchFiltered) -> Void
    ) -> Bool {
        frame.time = input.time
        frame.contacts.removeAllFromEnd()
        var hiddenDown = 0
        for (index, contact) in input.contacts.enumerated() {
            let source = index < sources.count ? sources[index] : 0
            switch contact.phase {
            case .began: began(contact, source: source, time: input.time, report: report)
            case .moved: moved(contact, source: source, time: input.time, report: report)
            case .ended: ended(contact, time: input.time, report: report)
            case .cancelled: cancelled(contact)
            }
            if let record = records.first(where: { $0.contact == contact.id }), record.verdict.isHidden {
                hiddenDown += 1
            }
        }
        frame.fingerCount = max(visibleDown, input.fingerCount - hiddenDown)
        refresh()
        let changed = frame.fingerCount != lastFingerCount
        lastFingerCount = frame.fingerCount
        return changed || !frame.contacts.isEmpty
    }

    /// Fires the earliest deadline if it is at or before `time`: held touches due begin,
    /// stuck ones end `cancelled`, in `frame` (stamped with the deadline). Returns false
    /// when nothing was due; call it until it does.
    public mutating func fireNextDeadline(upTo time: Timestamp, report: (TouchFiltered) -> Void) -> Bool {
        guard let deadline = nextDeadline, deadline <= time else { return false }
        frame.time = deadline
        frame.contacts.removeAllFromEnd()
        for index in records.indices where records[index].deadline == deadline {
            let record = records[index]
            switch record.verdict {
            case .held:
                Self.transition(log, &records[index], "hold-duration reached", .passes)
                records[index].anchor = record.position
                records[index].anchorTime = deadline
                visibleDown += 1
                frame.contacts.append(contact(of: record, .began))
            case .passes:
                Self.transition(log, &records[index], "stuck-after reached", .stuck)
                visibleDown -= 1
                frame.contacts.append(contact(of: record, .cancelled))
                report(TouchFiltered(time: deadline, contact: record.contact, reason: .stuck, location: record.location))
            case .dropped, .stuck:
                break
            }
        }
        frame.fingerCount = visibleDown
        lastFingerCount = visibleDown
        refresh()
        return true
    }

    // MARK: - Contacts

    private mutating func began(_ contact: Contact, source: Int, time: Timestamp, report: (TouchFiltered) -> Void) {
        if contact.startedUnobserved, let orphan = orphans.firstIndex(where: { $0.source == source }) {
            // The contact cancelled here (SYN_DROPPED, a reload) is this one, found again.
            var record = orphans.remove(at: orphan)
            log?("hygiene contact \(record.contact): \(record.verdict) → found again as contact \(contact.id) → \(record.verdict)")
            record.contact = contact.id
            record.position = contact.surfaceLocation
            record.location = contact.location
            record.unobserved = true
            records.append(record)
            if case .passes = record.verdict {
                visibleDown += 1
                frame.contacts.append(contact)
            }
            return
        }
        forgetOrphan(at: source)
        var record = Record(
            contact: contact.id, source: source, verdict: .passes, startTime: time, start: contact.surfaceLocation,
            position: contact.surfaceLocation, location: contact.location, unobserved: contact.startedUnobserved,
            anchor: contact.surfaceLocation, anchorTime: time, stuckAfter: settings.stuckAfter)
        let verdict = contact.startedUnobserved ? Verdict.passes : judge(contact, time: time)
        if settings.phantom == .suppress && !contact.startedUnobserved { seriesBegan(contact, time: time) }
        Self.transition(log, &record, "down", verdict)
        records.append(record)
        switch verdict {
        case .passes:
            visibleDown += 1
            frame.contacts.append(contact)
        case .dropped(let reason):
            var period: TimeSpan?
            if reason == .phantom && !series.reported {
                series.reported = true
                period = series.period
            }
            report(TouchFiltered(time: time, contact: contact.id, reason: reason, location: contact.location, seriesPeriod: period))
        case .held, .stuck:
            break
        }
    }

    /// The decision at touch-down, first rule first: bounce, repeat, phantom, hold.
    private func judge(_ contact: Contact, time: Timestamp) -> Verdict {
        if let lift = lastLift {
            let gap = time - lift.time
            if settings.debounce != .zero && gap <= settings.debounce && contact.surfaceLocation.distance(to: lift.point) <= slop {
                return .dropped(.bounce)
            }
            if settings.ignoreRepeat != .zero && gap <= settings.ignoreRepeat { return .dropped(.repeat) }
        }
        if settings.phantom == .suppress && isPhantom(contact, time: time) { return .dropped(.phantom) }
        if settings.holdDuration != .zero { return .held(deadline: time + settings.holdDuration) }
        return .passes
    }

    private mutating func moved(_ contact: Contact, source: Int, time: Timestamp, report: (TouchFiltered) -> Void) {
        guard let index = records.firstIndex(where: { $0.contact == contact.id }) else {
            // A contact the tracker never began here: passes as it is.
            frame.contacts.append(contact)
            return
        }
        records[index].source = source
        records[index].position = contact.surfaceLocation
        records[index].location = contact.location
        if contact.surfaceLocation.distance(to: records[index].start) > Self.phantomDistance { records[index].movedFromStart = true }
        switch records[index].verdict {
        case .passes:
            if contact.surfaceLocation.distance(to: records[index].anchor) > slop {
                records[index].anchor = contact.surfaceLocation
                records[index].anchorTime = time
            }
            frame.contacts.append(contact)
        case .held:
            if contact.surfaceLocation.distance(to: records[index].start) > slop {
                Self.transition(log, &records[index], "moved away", .dropped(.tooShort))
                report(TouchFiltered(time: time, contact: contact.id, reason: .tooShort, location: contact.location))
            }
        case .dropped, .stuck:
            break
        }
    }

    private mutating func ended(_ contact: Contact, time: Timestamp, report: (TouchFiltered) -> Void) {
        defer { lastLift = (time, contact.surfaceLocation) }
        guard let index = records.firstIndex(where: { $0.contact == contact.id }) else {
            // A zero-duration touch (began and lifted in one frame): judged as a whole.
            var record = Record(
                contact: contact.id, source: 0, verdict: .passes, startTime: time, start: contact.surfaceLocation,
                position: contact.surfaceLocation, location: contact.location, unobserved: false, anchor: contact.surfaceLocation,
                anchorTime: time, stuckAfter: .zero)
            var verdict = judge(contact, time: time)
            if case .held = verdict { verdict = .dropped(.tooShort) }
            if settings.phantom == .suppress {
                seriesBegan(contact, time: time)
                seriesEnded(record, time: time)
            }
            Self.transition(log, &record, "down and up", verdict)
            if case .dropped(let reason) = verdict {
                report(TouchFiltered(time: time, contact: contact.id, reason: reason, location: contact.location))
            } else {
                frame.contacts.append(contact)
            }
            return
        }
        var record = records.remove(at: index)
        if settings.phantom == .suppress { seriesEnded(record, time: time) }
        switch record.verdict {
        case .passes:
            visibleDown -= 1
            frame.contacts.append(contact)
            Self.transition(log, &record, "up", .passes)
        case .held:
            Self.transition(log, &record, "up", .dropped(.tooShort))
            report(TouchFiltered(time: time, contact: contact.id, reason: .tooShort, location: contact.location))
        case .dropped, .stuck:
            Self.transition(log, &record, "up", record.verdict)
        }
    }

    private mutating func cancelled(_ contact: Contact) {
        guard let index = records.firstIndex(where: { $0.contact == contact.id }) else {
            frame.contacts.append(contact)
            return
        }
        let record = records.remove(at: index)
        if case .passes = record.verdict {
            visibleDown -= 1
            frame.contacts.append(contact)
        }
        if settings.phantom == .suppress, series.candidate?.contact == contact.id { series = PhantomSeries() }
        log?("hygiene contact \(record.contact): \(record.verdict) → cancelled → kept for source \(record.source)")
        adopt(orphan: record)
    }

    private mutating func adopt(orphan record: Record) {
        forgetOrphan(at: record.source)
        orphans.append(record)
    }

    /// Removes the orphan of `source` (there is at most one per source).
    private mutating func forgetOrphan(at source: Int) {
        if let index = orphans.firstIndex(where: { $0.source == source }) { orphans.remove(at: index) }
    }

    // MARK: - Phantom series

    private func isPhantom(_ contact: Contact, time: Timestamp) -> Bool {
        guard series.members >= Self.phantomFirstDropped - 1, records.isEmpty,
            contact.surfaceLocation.distance(to: series.point) <= Self.phantomDistance
        else { return false }
        return Self.onPeriod(time - series.lastDown, series.period)
    }

    private static func onPeriod(_ interval: TimeSpan, _ period: TimeSpan) -> Bool {
        let difference = interval > period ? interval.microseconds - period.microseconds : period.microseconds - interval.microseconds
        return Double(difference) <= Double(period.microseconds) * phantomPeriodTolerance
    }

    /// A touch went down: it may be the next member of the series, or it breaks it.
    private mutating func seriesBegan(_ contact: Contact, time: Timestamp) {
        let alone = records.isEmpty
        let atPoint = series.members > 0 && contact.surfaceLocation.distance(to: series.point) <= Self.phantomDistance
        let interval = time - series.lastDown
        if alone && atPoint && (series.members == 1 || Self.onPeriod(interval, series.period)) {
            series.candidate = (contact.id, time, interval)
            return
        }
        // A touch elsewhere, with another down, or off the period: a new series may start here.
        series = PhantomSeries()
        series.point = contact.surfaceLocation
        if alone { series.candidate = (contact.id, time, .zero) }
    }

    /// A touch lifted: a short motionless candidate joins the series; anything else breaks it.
    private mutating func seriesEnded(_ record: Record, time: Timestamp) {
        guard let candidate = series.candidate, candidate.contact == record.contact else { return }
        series.candidate = nil
        guard !record.movedFromStart, time - record.startTime < Self.phantomMaximumDuration else {
            series = PhantomSeries()
            return
        }
        if series.members >= 1 { series.period = candidate.interval }
        series.members += 1
        series.lastDown = candidate.down
    }

    // MARK: - Helpers

    /// After every input: what is hidden, whether hygiene is still needed, the next deadline.
    private mutating func refresh() {
        var hidden = HiddenTouches.none
        var earliest: Timestamp?
        for record in records {
            if record.verdict.isHidden { hidden.insert(record.source) }
            if let deadline = record.deadline, deadline < earliest ?? .distantFuture { earliest = deadline }
        }
        for record in orphans where record.verdict.isHidden { hidden.insert(record.source) }
        self.hidden = hidden
        earliestDeadline = earliest
        engaged = filtersOn || !orphans.isEmpty || !records.isEmpty
    }

    private func contact(of record: Record, _ phase: TouchPhase) -> Contact {
        Contact(
            id: record.contact, phase: phase, location: record.location, surfaceLocation: record.position,
            startedUnobserved: record.unobserved)
    }

    /// Static, with the log passed in: a method of `self` called with `&records[i]` made
    /// Swift copy the whole struct for the overlapping access (and then `records` on write).
    private static func transition(_ log: ((String) -> Void)?, _ record: inout Record, _ input: StaticString, _ new: Verdict) {
        log?("hygiene contact \(record.contact): \(record.verdict) → \(input) → \(new)")
        record.verdict = new
    }
}
