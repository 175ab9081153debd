import GestureProtocol

/// Turns touch frames into gestures for one device. Every touch is offered to the regions
/// around its first point, innermost first, and to the top level (its *chain*, cut after a
/// region with `fall-through = false`); each region runs the recognizers of the kinds it
/// owns for that touch (`RegionRoles`), and the engine relays every win to the other regions
/// holding the same contacts, so that one arena decides across regions. Pure and
/// deterministic: time enters only with frames and with `advance(to:)`; `nextDeadline`
/// says when the caller must call `advance(to:)` next.
///
/// Semantics, state diagrams, the arbitration diagram and every decision: docs/gestures.md.
public struct GestureEngine {
    /// Configured regions sorted by area (smallest first, so the regions containing a point
    /// come innermost first), then the top level last.
    private var regions: [RegionRecognizers]
    /// Wins of this step waiting to be relayed to the other regions of their touch.
    private var claims: [ArenaClaim] = []
    /// A region has a press to report at the end of the step.
    private var pressesToReport = false
    private let surface: PhysicalSize
    private var lastTime: Timestamp = .zero
    private var generation: UInt32 = 0

    /// Claims one step holds without growing its storage.
    private static let claimCapacity = 16

    /// Receives every recognizer state transition as "region recognizer: old → input → new"
    /// (nil: no strings are built at all).
    public var transitionLog: ((String) -> Void)? {
        didSet {
            for index in regions.indices { regions[index].context.reporter.log = transitionLog }
        }
    }

    /// - Parameters:
    ///   - configuration: defaults and regions (thresholds in mm and ms).
    ///   - surface: the surface's size in mm, for swipe edge margins.
    public init(configuration: EngineConfiguration, surface: PhysicalSize) {
        let sorted = configuration.regions.enumerated()
            .sorted { ($0.element.rect.area, $0.offset) < ($1.element.rect.area, $1.offset) }
            .map(\.element)
        regions = sorted.enumerated().map { index, region in
            RegionRecognizers(
                index: index, name: region.name, rect: region.rect, settings: region.settings, fallThrough: region.fallThrough,
                simultaneous: region.simultaneous, highPriority: region.highPriority)
        }
        regions.append(RegionRecognizers(index: regions.count, name: nil, rect: nil, settings: configuration.defaults))
        self.surface = surface
        claims.reserveCapacity(Self.claimCapacity)
    }

    /// The earliest pending timer (µs), nil if none. Kept up to date by every input (the
    /// regions' timers change only in `process`, `advance` and `cancelAll`): read before
    /// every event (`DevicePipeline.nextDeadline`), it costs one load, not a walk over the
    /// regions.
    @inlinable public var nextDeadline: Timestamp? { earliestDeadline }

    @usableFromInline private(set) var earliestDeadline: Timestamp?

    /// Processes one frame: first fires every timer due at or before its time (in order),
    /// then the frame. A frame older than the last one is treated as happening at the last
    /// time seen.
    public mutating func process<S: GestureSink>(_ frame: TouchFrame, into sink: inout S) {
        let time = max(frame.time, lastTime)
        // `earliestDeadline` is exact after every input: without a timer due, `advance`
        // would only walk the regions to find none (most frames).
        if let deadline = earliestDeadline, deadline <= time {
            advance(to: time, into: &sink)
        } else {
            lastTime = time
        }
        generation &+= 1
        var downInFrame = 0
        for contact in frame.contacts {
            var known = false
            for index in regions.indices where regions[index].update(contact, generation: generation) {
                known = true
            }
            if !known {
                switch contact.phase {
                case .began, .moved:
                    // A contact first seen moving was down before we could observe it.
                    offer(contact, unobserved: contact.startedUnobserved || contact.phase == .moved)
                case .ended, .cancelled:
                    continue
                }
            }
            switch contact.phase {
            case .began, .moved: downInFrame += 1
            case .ended, .cancelled: break
            }
        }
        // Fingers counted by BTN_TOOL_* but not tracked belong to the regions that hold
        // every contact of the frame.
        let untracked = frame.fingerCount > downInFrame
        for index in regions.indices where !regions[index].isIdle {
            let deviceFingers = untracked && regions[index].holdsAll(of: frame) ? frame.fingerCount : 0
            regions[index].finishFrame(
                time: time, generation: generation, deviceFingers: deviceFingers, surface: surface, claims: &claims, sink: &sink)
            if regions[index].hasPressToReport { pressesToReport = true }
            if !claims.isEmpty { relayClaims(time: time, into: &sink) }
        }
        for index in regions.indices where !regions[index].isIdle {
            regions[index].endFrame()
        }
        if pressesToReport { flushPresses(into: &sink) }
        earliestDeadline = earliestTimer()?.1
    }

    /// Fires every timer with a deadline at or before `time`, in deadline order, each event
    /// stamped with its deadline.
    public mutating func advance<S: GestureSink>(to time: Timestamp, into sink: inout S) {
        let time = max(time, lastTime)
        while let (index, deadline) = earliestTimer(), deadline <= time {
            regions[index].fireTimers(upTo: deadline, claims: &claims, sink: &sink)
            if regions[index].hasPressToReport { pressesToReport = true }
            if !claims.isEmpty { relayClaims(time: deadline, into: &sink) }
            if pressesToReport { flushPresses(into: &sink) }
        }
        lastTime = time
        earliestDeadline = earliestTimer()?.1
    }

    /// Device removed or SYN_DROPPED: fires due timers, then every gesture in flight ends
    /// `cancelled` (presses last), held-back exclusive taps are reported, and every contact
    /// is forgotten (contacts still down come back as unobserved ones, ignored until they lift).
    public mutating func cancelAll<S: GestureSink>(at time: Timestamp, into sink: inout S) {
        advance(to: time, into: &sink)
        for index in regions.indices {
            regions[index].cancelAll(time: lastTime, sink: &sink)
        }
        flushPresses(into: &sink)
        earliestDeadline = earliestTimer()?.1
    }

    // MARK: Regions and composition

    /// Offers a new contact to every region of its chain that has a role for it (or is
    /// already tracking a sequence it joins). A finger that lands where its press would be
    /// is ignoring its fingers (after a palm, or a start nobody saw) joins that ignored
    /// sequence alone: like the fingers already there, it yields nothing until they all lift.
    private mutating func offer(_ contact: Contact, unobserved: Bool) {
        let point = contact.location
        let end = chainEnd(at: point)
        let pressOwner = owner(of: .press, chainEnd: end, at: point)
        if let pressOwner, regions[pressOwner].isIgnoring {
            regions[pressOwner].add(contact, unobserved: unobserved, generation: generation, roles: .none, touch: contact.id)
            return
        }
        // The finger joins the sequence of its press region when that one is busy: the
        // sequences it starts elsewhere belong to that touch (and its press).
        let touch = pressOwner.flatMap { regions[$0].trackedTouch } ?? contact.id
        for index in 0...end where encloses(index, point) {
            let roles = roles(of: index, chainEnd: end, at: point)
            if !regions[index].isIdle || !roles.isEmpty {
                regions[index].add(contact, unobserved: unobserved, generation: generation, roles: roles, touch: touch)
            }
        }
    }

    private func encloses(_ index: Int, _ point: Point) -> Bool {
        regions[index].rect?.contains(point) ?? true
    }

    /// The last region of the chain at `point`: the first (innermost) region containing it
    /// that keeps its touches, else the top level.
    private func chainEnd(at point: Point) -> Int {
        for index in regions.indices where encloses(index, point) && !regions[index].fallThrough {
            return index
        }
        return regions.count - 1
    }

    /// The region of the chain that owns `kind`: the outermost one that lists it in
    /// `high-priority` (and enables it), else the innermost one that enables it, else, for
    /// the kinds that arbitrate, the innermost region, which runs it unreported (a gesture
    /// left out still arbitrates); nil when no region runs it.
    private func owner(of kind: GestureKind, chainEnd end: Int, at point: Point) -> Int? {
        var innermost: Int?
        var enabling: Int?
        var highPriority: Int?
        for index in 0...end where encloses(index, point) {
            let region = regions[index]
            if innermost == nil { innermost = index }
            guard region.enabled.contains(kind) else { continue }
            if enabling == nil { enabling = index }
            if region.highPriority.contains(kind) { highPriority = index }
        }
        if let owner = highPriority ?? enabling { return owner }
        switch kind {
        case .tap, .longPress, .drag, .pinch, .rotate: return innermost
        case .press, .swipe: return nil
        }
    }

    /// What region `index` does for a touch starting at `point`.
    private func roles(of index: Int, chainEnd end: Int, at point: Point) -> RegionRoles {
        let region = regions[index]
        var roles = RegionRoles.none
        for kind in RegionRoles.everyKind {
            if owner(of: kind, chainEnd: end, at: point) == index {
                roles.exclusive.insert(kind)
            } else if region.simultaneous.contains(kind) && region.enabled.contains(kind) {
                roles.simultaneous.insert(kind)
            }
        }
        for kind in RegionRoles.everyKind where roles.runs(kind) && region.enabled.contains(kind) {
            roles.reported.insert(kind)
        }
        if let longPressOwner = owner(of: .longPress, chainEnd: end, at: point) {
            roles.longPressEndsTap = regions[longPressOwner].enabled.contains(.longPress)
        }
        return roles
    }

    /// Tells every other region holding a contact of a winner's region that it lost that
    /// touch, or, for a cancelled sequence, that its sequence is cancelled too (innermost
    /// first; a region told twice changes nothing the second time).
    private mutating func relayClaims<S: GestureSink>(time: Timestamp, into sink: inout S) {
        var next = 0
        while next < claims.count {
            let claim = claims[next]
            next += 1
            for index in regions.indices
            where index != claim.region && !regions[index].isIdle
                && regions[index].sharesContact(with: regions[claim.region].contacts)
            {
                regions[index].yield(to: claim, time: time, claims: &claims, sink: &sink)
                if regions[index].hasPressToReport { pressesToReport = true }
            }
        }
        claims.removeAll(keepingCapacity: true)
    }

    /// Reports the presses that ended in this step, after every other gesture.
    private mutating func flushPresses<S: GestureSink>(into sink: inout S) {
        pressesToReport = false
        for index in regions.indices where regions[index].hasPressToReport {
            regions[index].flushPress(sink: &sink)
        }
    }

    private func earliestTimer() -> (Int, Timestamp)? {
        var earliest: (Int, Timestamp)?
        for index in regions.indices {
            guard let deadline = regions[index].nextDeadline else { continue }
            if let current = earliest, current.1 <= deadline { continue }
            earliest = (index, deadline)
        }
        return earliest
    }
}
