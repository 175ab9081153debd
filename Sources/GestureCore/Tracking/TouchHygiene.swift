import GestureProtocol

/// `phantom` in `[touch]`: what to do with touches that recur at one point on a fixed period.
public enum PhantomPolicy: String, Sendable, Hashable, CaseIterable {
    case off
    /// From the fourth touch of a series on, drop those that keep its period.
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
    /// A contact that lifts sooner than this after its touch-down (or in the frame it
    /// began) is a zero-duration ghost, dropped whole; every touch is held back this long.
    public var shortestContact: TimeSpan = .zero

    /// The largest `shortest-contact` accepted: every touch is held back this long, and the
    /// corpus' shortest real contacts are longer (docs/configuration.md).
    public static let largestShortestContact = TimeSpan.milliseconds(1)

    public init(
        debounce: TimeSpan = .zero, ignoreRepeat: TimeSpan = .zero, holdDuration: TimeSpan = .zero, stuckAfter: TimeSpan = .zero,
        phantom: PhantomPolicy = .off, shortestContact: TimeSpan = .zero
    ) {
        self.debounce = debounce
        self.ignoreRepeat = ignoreRepeat
        self.holdDuration = holdDuration
        self.stuckAfter = stuckAfter
        self.phantom = phantom
        self.shortestContact = shortestContact
    }

    /// Whether any filter is on (when none is, the pipeline bypasses `TouchHygiene` entirely).
    public var isActive: Bool {
        debounce != .zero || ignoreRepeat != .zero || holdDuration != .zero || stuckAfter != .zero || phantom != .off
            || shortestContact != .zero
    }

    /// Whether periodic series are watched (`phantom = "suppress"` drops them; with only
    /// `shortest-contact` they are watched so that `status` can show them).
    var watchesSeries: Bool { phantom == .suppress || shortestContact != .zero }
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
    /// `shortest-contact`: lifted sooner than any finger can (in the frame it began, or
    /// within the limit).
    case zeroDuration = "zero-duration"

    /// Position in `allCases` (metrics arrays are indexed by it).
    public var order: Int {
        switch self {
        case .bounce: 0
        case .repeat: 1
        case .tooShort: 2
        case .phantom: 3
        case .stuck: 4
        case .zeroDuration: 5
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

    /// Adds every source of `other`.
    public mutating func formUnion(_ other: HiddenTouches) {
        words = (words.0 | other.words.0, words.1 | other.words.1, words.2 | other.words.2, words.3 | other.words.3)
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
/// A contact *passes*, is *held* (not begun yet: `hold-duration`, `shortest-contact`, or a
/// touch on the phase of a learned phantom series), is *dropped* whole (bounce, repeat,
/// too-short, phantom, zero-duration: nothing of it is seen), or is *stuck* (`stuck-after`:
/// ended `cancelled` and ignored until the hardware lifts it). The decision for bounce and
/// repeat is made at touch-down; held and stuck ones change at deadlines, which
/// `nextDeadline` returns and `advance(to:)` fires, or when the held touch lifts or moves.
/// Pure and clock-free, as the engine; see docs/gestures.md ("Touch hygiene") for the rules
/// and the diagram.
///
/// Each contact keeps the settings it started with (a reload changes only touches that
/// begin afterwards): a contact cancelled by `SYN_DROPPED` or by a reload leaves its record
/// at its source, and the contact the tracker finds there afterwards (unobserved) takes it
/// over. Allocation-free once its storage has grown to the contacts down at once.
public struct TouchHygiene {
    private enum Verdict: Hashable, CustomStringConvertible {
        case passes
        /// Held back until `deadline` (hold-duration, shortest-contact, a phantom's phase).
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
        /// shortest-contact as it was when the touch began.
        var shortestContact: TimeSpan = .zero
        /// Held by hold-duration (moving away drops it), not only to tell a ghost.
        var heldForDuration = false
        /// Held because it fell on the phase of a learned phantom series.
        var phantomCandidate = false
        /// Moved more than `phantomDistance` from its start.
        var movedFromStart = false

        var deadline: Timestamp? {
            switch verdict {
            case .held(let deadline): deadline
            case .passes: stuckAfter == .zero ? nil : anchorTime + stuckAfter
            case .dropped, .stuck: nil
            }
        }

        /// Why a held touch that lifts at `time` is dropped.
        func liftReason(at time: Timestamp) -> TouchHygieneReason {
            if shortestContact != .zero && time - startTime < shortestContact { return .zeroDuration }
            return phantomCandidate ? .phantom : .tooShort
        }
    }

    /// A periodic series of short motionless touches at one point. Learning: a touch at the
    /// point on the period joins it, one off the period starts it again; touches elsewhere
    /// do not matter. Learned (`phantomFirstDropped - 1` members): it stays learned while its
    /// touches keep the phase (`lastDown` plus a whole number of periods, up to
    /// `phantomMissedPeriods`); a touch at the point off the phase is a person's and leaves it
    /// as it is.
    private struct PhantomSeries {
        var point = SurfacePoint.zero
        var location = Point(x: 0, y: 0)
        /// Confirmed members (touches that lifted short and motionless).
        var members = 0
        var lastDown = Timestamp.zero
        /// The interval between downs, per period (members ≥ 2).
        var period = TimeSpan.zero
        /// The longest member's duration.
        var longest = TimeSpan.zero
        /// The touch down now that joins the series if it lifts short and motionless.
        var candidate: (contact: UInt32, down: Timestamp, period: TimeSpan)?
        /// A dropped phantom of this series has been reported (the log line of the series).
        var reported = false

        var isLearned: Bool { members >= TouchHygiene.phantomFirstDropped - 1 }

        /// How long a touch on the phase is held: a ghost lifts by then, a person's touch
        /// at the point outlasts it.
        var hold: TimeSpan {
            min(TimeSpan(microseconds: longest.microseconds * 2) + TouchHygiene.phantomHoldMargin, TouchHygiene.phantomMaximumDuration)
        }
    }

    public let settings: TouchHygieneSettings
    private let filtersOn: Bool
    /// The tap slop: bounce distance, hold-duration and stuck-after motion.
    public let slop: Length
    /// The frame for the engine after `process` or `advance(to:)`; valid until the next call.
    public private(set) var frame = TouchFrame(time: .zero)
    /// The sources whose touch is hidden now (for the pass-through filter), and those whose
    /// touch lifted hidden (dropped) in the last input: a touch held at its touch-down and
    /// lifted in the same input as its hold ended (read together, a timer that ran late)
    /// was shown, so its source is not here in its last frame, and the filter tells the
    /// two apart (`PassThroughFilter`).
    public private(set) var hidden = HiddenTouches.none
    /// Sources whose touch lifted while hidden, in the input being processed.
    private var liftedHidden = HiddenTouches.none
    private var records: [Record] = []
    /// Records of contacts cancelled (SYN_DROPPED, palm, reload), by source, for the
    /// unobserved contact found there afterwards.
    private var orphans: [Record] = []
    private var lastLift: (time: Timestamp, point: SurfacePoint)?
    /// At most `phantomSeriesCapacity`, the most recent last.
    private var series: [PhantomSeries] = []
    private var visibleDown = 0
    private var lastFingerCount = 0
    /// Receives every decision as "hygiene contact N: old → input → new" (nil: no strings built).
    public var log: ((String) -> Void)?

    /// Phantoms repeat within this distance of the series' first point.
    public static let phantomDistance = Length.millimetres(1.0)
    /// Successive intervals of a phantom series differ by at most this fraction; a learned
    /// series' touches fall within this fraction of a period of its phase.
    public static let phantomPeriodTolerance = 0.02
    /// A phantom is shorter than this (a tap, not a press).
    public static let phantomMaximumDuration = TimeSpan.milliseconds(500)
    /// The fourth touch of a series is the first dropped (three are needed to see a period
    /// twice; a person cannot be told from a phantom sooner).
    public static let phantomFirstDropped = 4
    /// A learned series survives this many periods without a touch (a ghost the panel
    /// skipped, or one that fell while a finger was down); after that it is learned again.
    public static let phantomMissedPeriods = 4
    /// A touch on a learned series' phase is held for twice the series' longest touch plus
    /// this: a ghost lifts within it, a person's press outlasts it.
    public static let phantomHoldMargin = TimeSpan.milliseconds(20)
    /// Series watched at once per device (touches at as many points).
    static let phantomSeriesCapacity = 4
    /// Contacts one device has down at once without the storage growing.
    static let reservedContacts = 32

    /// - Parameters:
    ///   - settings: the filters (all off: `process` passes every frame through unchanged).
    ///   - slop: the tap slop (mm).
    ///   - inheriting: the hygiene this one replaces (a reload): contacts down keep the
    ///     decisions and settings they began with; learned series stay learned.
    public init(settings: TouchHygieneSettings, slop: Length, inheriting previous: TouchHygiene? = nil) {
        self.settings = settings
        self.slop = slop
        filtersOn = settings.isActive
        records.reserveCapacity(Self.reservedContacts)
        orphans.reserveCapacity(Self.reservedContacts)
        series.reserveCapacity(Self.phantomSeriesCapacity)
        frame.contacts.reserveCapacity(Self.reservedContacts)
        if let previous {
            orphans.append(contentsOf: previous.orphans)
            for record in previous.records { adopt(orphan: record) }
            lastLift = previous.lastLift
            if settings.watchesSeries { series.append(contentsOf: previous.series) }
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

    /// The learned periodic series (ghosts) of this device, for `status`.
    public func ghostSeries(device: String) -> [GhostSeries] {
        series.filter(\.isLearned).map {
            GhostSeries(device: device, location: $0.location, period: $0.period, count: UInt64($0.members))
        }
    }

    // MARK: - Inputs

    /// Filters one frame of the tracker (`sources[i]` is the source of `input.contacts[i]`)
    /// into `frame`; returns whether the engine has a frame to see. Call `advance(to:)` up to
    /// the frame's time first.
    public mutating func process(
        _ input: TouchFrame, sources: [Int], report: (TouchFiltered) -> Void
    ) -> Bool {
        frame.time = input.time
        frame.contacts.removeAllFromEnd()
        liftedHidden = .none
        var hiddenDown = 0
        // A touch that begins while another is shown (one lifting in this frame included) is
        // not held for shortest-contact: holding it would end the person's touch sequence
        // between the two (a tracking id handed over in one frame).
        let accompanied = visibleDown > 0
        for (index, contact) in input.contacts.enumerated() {
            let source = index < sources.count ? sources[index] : 0
            switch contact.phase {
            case .began: began(contact, source: source, time: input.time, accompanied: accompanied, report: report)
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
        liftedHidden = .none
        for index in records.indices where records[index].deadline == deadline {
            let record = records[index]
            switch record.verdict {
            case .held:
                Self.transition(log, &records[index], "hold reached", .passes)
                records[index].anchor = record.position
                records[index].anchorTime = deadline
                visibleDown += 1
                frame.contacts.append(contact(of: record, .began))
                // It outlasted the series' touches: a person's, not a member.
                if record.phantomCandidate { forgetCandidate(record.contact) }
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

    private mutating func began(
        _ contact: Contact, source: Int, time: Timestamp, accompanied: Bool, report: (TouchFiltered) -> Void
    ) {
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
            anchor: contact.surfaceLocation, anchorTime: time, stuckAfter: settings.stuckAfter,
            shortestContact: accompanied ? .zero : settings.shortestContact)
        var verdict = Verdict.passes
        if !contact.startedUnobserved {
            let phantomHold = settings.watchesSeries ? seriesBegan(contact, time: time) : nil
            record.phantomCandidate = phantomHold != nil
            record.heldForDuration = settings.holdDuration != .zero
            verdict = judge(contact, time: time, shortestContact: record.shortestContact, phantomHold: phantomHold)
        }
        Self.transition(log, &record, "down", verdict)
        records.append(record)
        switch verdict {
        case .passes:
            visibleDown += 1
            frame.contacts.append(contact)
        case .dropped(let reason):
            report(TouchFiltered(time: time, contact: contact.id, reason: reason, location: contact.location))
        case .held, .stuck:
            break
        }
    }

    /// The decision at touch-down, first rule first: bounce, repeat, then held for the
    /// longest of hold-duration, `shortestContact` (zero for a touch that begins beside
    /// another) and a phantom's hold (`phantomHold`: the touch falls on a learned series'
    /// phase, phantom = suppress).
    private func judge(_ contact: Contact, time: Timestamp, shortestContact: TimeSpan, phantomHold: TimeSpan?) -> Verdict {
        if let lift = lastLift {
            let gap = time - lift.time
            if settings.debounce != .zero && gap <= settings.debounce && contact.surfaceLocation.distance(to: lift.point) <= slop {
                return .dropped(.bounce)
            }
            if settings.ignoreRepeat != .zero && gap <= settings.ignoreRepeat { return .dropped(.repeat) }
        }
        let hold = max(settings.holdDuration, shortestContact, phantomHold ?? .zero)
        return hold == .zero ? .passes : .held(deadline: time + hold)
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
            guard contact.surfaceLocation.distance(to: records[index].start) > slop else { break }
            if records[index].heldForDuration {
                Self.transition(log, &records[index], "moved away", .dropped(.tooShort))
                report(TouchFiltered(time: time, contact: contact.id, reason: .tooShort, location: contact.location))
            } else {
                // Held only to tell a ghost, and ghosts do not move: it begins now, here.
                Self.transition(log, &records[index], "moved away", .passes)
                records[index].anchor = contact.surfaceLocation
                records[index].anchorTime = time
                visibleDown += 1
                frame.contacts.append(self.contact(of: records[index], .began))
                if records[index].phantomCandidate { forgetCandidate(contact.id) }
            }
        case .dropped, .stuck:
            break
        }
    }

    private mutating func ended(_ contact: Contact, time: Timestamp, report: (TouchFiltered) -> Void) {
        defer { lastLift = (time, contact.surfaceLocation) }
        guard let index = records.firstIndex(where: { $0.contact == contact.id }) else {
            endedInItsFirstFrame(contact, time: time, report: report)
            return
        }
        var record = records.remove(at: index)
        defer { if settings.watchesSeries { seriesEnded(record, time: time) } }
        switch record.verdict {
        case .passes:
            visibleDown -= 1
            frame.contacts.append(contact)
            Self.transition(log, &record, "up", .passes)
        case .held:
            liftedHidden.insert(record.source)
            let reason = record.liftReason(at: time)
            Self.transition(log, &record, "up", .dropped(reason))
            report(
                TouchFiltered(
                    time: time, contact: contact.id, reason: reason, location: contact.location,
                    seriesPeriod: reason == .phantom ? firstReport(of: record.contact) : nil))
        case .dropped, .stuck:
            liftedHidden.insert(record.source)
            Self.transition(log, &record, "up", record.verdict)
        }
    }

    /// A zero-duration touch (began and lifted in one frame): judged as a whole.
    private mutating func endedInItsFirstFrame(_ contact: Contact, time: Timestamp, report: (TouchFiltered) -> Void) {
        var record = Record(
            contact: contact.id, source: 0, verdict: .passes, startTime: time, start: contact.surfaceLocation,
            position: contact.surfaceLocation, location: contact.location, unobserved: false, anchor: contact.surfaceLocation,
            anchorTime: time, stuckAfter: .zero, shortestContact: settings.shortestContact)
        var phantomHold: TimeSpan?
        if settings.watchesSeries {
            phantomHold = seriesBegan(contact, time: time)
            record.phantomCandidate = phantomHold != nil
        }
        var verdict = judge(
            contact, time: time, shortestContact: settings.shortestContact, phantomHold: settings.phantom == .suppress ? phantomHold : nil)
        if case .held = verdict { verdict = .dropped(record.liftReason(at: time)) }
        var period: TimeSpan?
        if case .dropped(.phantom) = verdict { period = firstReport(of: contact.id) }
        if settings.watchesSeries { seriesEnded(record, time: time) }
        Self.transition(log, &record, "down and up", verdict)
        if case .dropped(let reason) = verdict {
            report(TouchFiltered(time: time, contact: contact.id, reason: reason, location: contact.location, seriesPeriod: period))
        } else {
            frame.contacts.append(contact)
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
        if let member = series.firstIndex(where: { $0.candidate?.contact == contact.id }), !series[member].isLearned {
            series.remove(at: member)
        } else {
            forgetCandidate(contact.id)
        }
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

    /// Whether `interval` is a whole number of `period`s (1 up to `periods`), within the tolerance.
    private static func onPhase(_ interval: TimeSpan, _ period: TimeSpan, periods: Int) -> Bool {
        guard period > .zero else { return false }
        let ratio = Double(interval.microseconds) / Double(period.microseconds)
        let whole = ratio.rounded()
        guard whole >= 1, whole <= Double(periods) else { return false }
        let difference = abs(Double(interval.microseconds) - whole * Double(period.microseconds))
        return difference <= Double(period.microseconds) * phantomPeriodTolerance
    }

    /// A touch went down: it may be the next touch of the series at its point (or start
    /// one there). Returns the hold for it when it falls on a learned series' phase and
    /// phantom = suppress.
    private mutating func seriesBegan(_ contact: Contact, time: Timestamp) -> TimeSpan? {
        guard let index = series.firstIndex(where: { contact.surfaceLocation.distance(to: $0.point) <= Self.phantomDistance }) else {
            startSeries(at: contact, time: time)
            return nil
        }
        let interval = time - series[index].lastDown
        let current = series[index]
        if current.candidate != nil { return nil }  // one down at the point already: not a ghost of it
        switch current.members {
        case 0:
            series[index].candidate = (contact.id, time, .zero)
        case 1:
            series[index].candidate = (contact.id, time, interval)
        default:
            let periods = current.isLearned ? Self.phantomMissedPeriods : 1
            if Self.onPhase(interval, current.period, periods: periods) {
                let whole = max(1, Int((Double(interval.microseconds) / Double(current.period.microseconds)).rounded()))
                series[index].candidate = (contact.id, time, TimeSpan(microseconds: interval.microseconds / UInt64(whole)))
                if current.isLearned && settings.phantom == .suppress { return current.hold }
            } else if !current.isLearned
                || interval > TimeSpan(microseconds: current.period.microseconds * UInt64(Self.phantomMissedPeriods + 1))
            {
                // Learning and off the period, or a learned series gone quiet: learn again from here.
                series.remove(at: index)
                startSeries(at: contact, time: time)
            }
        // Otherwise: a person's touch at a learned series' point, off its phase.
        }
        return nil
    }

    private mutating func startSeries(at contact: Contact, time: Timestamp) {
        if series.count >= Self.phantomSeriesCapacity {
            // Room for the new point: the oldest series goes, a learning one before a learned one.
            let victim = series.firstIndex { !$0.isLearned } ?? 0
            series.remove(at: victim)
        }
        series.append(
            PhantomSeries(point: contact.surfaceLocation, location: contact.location, candidate: (contact.id, time, .zero)))
    }

    /// A touch lifted: a short motionless candidate joins its series; a learning series is
    /// broken by anything else, a learned one only loses the candidate.
    private mutating func seriesEnded(_ record: Record, time: Timestamp) {
        guard let index = series.firstIndex(where: { $0.candidate?.contact == record.contact }),
            let candidate = series[index].candidate
        else { return }
        series[index].candidate = nil
        let duration = time - record.startTime
        let limit = series[index].isLearned ? series[index].hold : Self.phantomMaximumDuration
        guard !record.movedFromStart, duration < limit else {
            if !series[index].isLearned { series.remove(at: index) }
            return
        }
        if series[index].members >= 1 { series[index].period = candidate.period }
        series[index].members += 1
        series[index].lastDown = candidate.down
        series[index].longest = max(series[index].longest, duration)
    }

    /// The contact is no longer a candidate of any series (it outlasted the series' touches).
    private mutating func forgetCandidate(_ contact: UInt32) {
        for index in series.indices where series[index].candidate?.contact == contact { series[index].candidate = nil }
    }

    /// The period of the series whose candidate `contact` is, if no dropped touch of it was
    /// reported yet (the log says so once per series); nil otherwise.
    private mutating func firstReport(of contact: UInt32) -> TimeSpan? {
        guard let index = series.firstIndex(where: { $0.candidate?.contact == contact }), !series[index].reported else { return nil }
        series[index].reported = true
        return series[index].period
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
        hidden.formUnion(liftedHidden)
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
