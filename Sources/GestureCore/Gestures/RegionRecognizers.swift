import GestureProtocol

/// A finger as one region's touch sequence sees it.
struct TrackedContact {
    var id: UInt32
    var startLocation: Point
    var surfaceStart: SurfacePoint
    var previousLocation: Point
    var previousSurfaceLocation: SurfacePoint
    var location: Point
    var surfaceLocation: SurfacePoint
    var unobserved: Bool
    /// Touched down in the current frame.
    var joined: Bool
    /// Lifted, cancelled or vanished in the current frame (its location is the last one).
    var lifting: Bool
    /// The frame generation that last mentioned it.
    var seen: UInt32

    /// Down in the previous frame and still down after this one.
    var isContinuing: Bool { !joined && !lifting }
}

/// What one region does for one touch sequence, decided by the engine from the regions
/// around the sequence's first touch (docs/gestures.md, "Regions and composition").
struct RegionRoles: Sendable, Hashable {
    /// Kinds this region recognizes for the touch in competition with the other regions:
    /// it is their owner (the innermost region that enables them, or the outermost that
    /// lists them in `high-priority`; a kind nobody enables is run, unreported, by the
    /// innermost region, so that it still arbitrates).
    var exclusive: GestureKindSet
    /// Kinds recognized here alongside their owner (`simultaneous`): never competing with
    /// another region's gestures.
    var simultaneous: GestureKindSet
    /// Of those, the kinds this region enables: what it reports.
    var reported: GestureKindSet
    /// The touch's long press is enabled (by the region that owns it): a tap must lift
    /// before the long-press duration. Where no region enables long press, a tap has no
    /// longest duration (as UIKit's).
    var longPressEndsTap = false

    static let none = RegionRoles(exclusive: .none, simultaneous: .none, reported: .none)

    var isEmpty: Bool { exclusive.isEmpty && simultaneous.isEmpty }

    func runs(_ kind: GestureKind) -> Bool { exclusive.contains(kind) || simultaneous.contains(kind) }

    /// Every kind, stored once (`allCases` may build an array on each call).
    static let everyKind: [GestureKind] = GestureKind.allCases
}

/// A member of one region that won the touch, as the engine relays it to the other regions
/// holding any of the same contacts.
struct ArenaClaim: Sendable, Hashable {
    /// The index of the winning region in the engine (larger: encloses the smaller ones a
    /// touch shares with it).
    var region: Int
    /// The members that lose by it in the other regions (those of another interpretation:
    /// a tap defeats long press and drag, a drag defeats tap and long press, a pinch or
    /// rotate defeats tap and long press).
    var defeats: GestureArena.Members
    /// The kinds the winner owns (a tap, a long press; a drag and/or a swipe): a member of
    /// another region owning one of the same kinds for another finger loses too. (A drag
    /// owned here and a swipe owned there are one movement and go on together.)
    var kinds = GestureKindSet.none
    /// The region's sequence was cancelled (a palm among its fingers): the sequences that
    /// share a finger with it are cancelled too, so no gesture outlives the press around it.
    var cancels = false
}

/// One frame's motion of a region's fingers, summed once and before any decision: pure
/// arithmetic on the contacts, no recognizer state.
struct FrameMotion {
    /// Fingers still down after this frame.
    var down = 0
    /// Fingers down in the previous frame and still down after this one: only they make the
    /// frame's translation, spread and turn (a finger that joins, lifts or is cancelled in
    /// the frame takes no part in it, so joins and lifts never jump and never turn).
    var continuing = 0
    /// Fingers whose movement makes `delta`: the continuing ones, or, in the frame of the
    /// last lift, the fingers lifting in it (their last movement ends the translation).
    var moving = 0
    /// Fingers taking part: contacts, or more when the device counts more (BTN_TOOL_*).
    var fingers = 0
    /// Centroid of every contact of the frame, lifting ones included.
    var centroid = Point.zero
    /// Mean movement of the continuing fingers since the previous frame.
    var delta = Point.zero
    var surfaceDelta = SurfacePoint.zero
    /// Farthest any finger is from where it touched down.
    var maximumTravel = Length.zero
    /// Every finger of the sequence is outside the region's rectangle (false for the top level).
    var allOutside = false
    var anyMoved = false
    /// Fingers that touched down in this frame, and fingers that lifted in it.
    var joined = 0
    var lifting = 0
    /// A finger joined or lifted.
    var fingersChanged: Bool { joined > 0 || lifting > 0 }
    /// With two or more continuing fingers: their spread (mean distance from their
    /// centroid) now, now over before, its change, and their mean turn around the centroid.
    var spread = Length.zero
    var spreadRatio = 1.0
    var spreadChange = Length.zero
    var turn = Angle.zero

    /// Fingers closer than this to their centroid carry no usable angle.
    static var minimumRadiusForAngle: Length { .millimetres(0.5) }
    /// A spread below this cannot serve as a scale reference.
    static var minimumSpread: Length { .millimetres(0.1) }

    /// The sums a frame's movement is the mean of.
    private struct MovementSums {
        var previous = Point.zero
        var current = Point.zero
        var previousSurface = SurfacePoint.zero
        var currentSurface = SurfacePoint.zero
        var anyMoved = false

        @inline(__always)
        mutating func add(_ contact: TrackedContact) {
            previous = previous + contact.previousLocation
            current = current + contact.location
            previousSurface = previousSurface + contact.previousSurfaceLocation
            currentSurface = currentSurface + contact.surfaceLocation
            if contact.location != contact.previousLocation { anyMoved = true }
        }
    }

    init() {}

    @inline(__always)
    init(contacts: [TrackedContact], rect: Rect?, deviceFingers: Int) {
        var sums = MovementSums()
        var locationSum = Point.zero
        var outside = 0
        for contact in contacts {
            if contact.lifting { lifting += 1 } else { down += 1 }
            if contact.joined { joined += 1 }
            if let rect, !rect.contains(contact.location) { outside += 1 }
            locationSum = locationSum + contact.location
            maximumTravel = max(maximumTravel, contact.surfaceLocation.distance(to: contact.surfaceStart))
            guard contact.isContinuing else { continue }
            continuing += 1
            sums.add(contact)
        }
        fingers = max(contacts.count, deviceFingers)
        allOutside = outside > 0 && outside == contacts.count
        centroid = contacts.isEmpty ? .zero : locationSum / Double(contacts.count)
        if continuing == 0 && down == 0 {
            // The last lift: the lifting fingers' own last movement (no finger stays to
            // make it jump).
            for contact in contacts where !contact.joined {
                moving += 1
                sums.add(contact)
            }
        } else {
            moving = continuing
        }
        anyMoved = sums.anyMoved
        guard moving > 0 else { return }
        let n = Double(moving)
        delta = (sums.current - sums.previous) / n
        surfaceDelta = (sums.currentSurface - sums.previousSurface) / n
        guard continuing >= 2 else { return }
        let previousCentroid = sums.previousSurface / n
        let currentCentroid = sums.currentSurface / n
        var previousSpread = Length.zero
        var currentSpread = Length.zero
        var turnSum = Angle.zero
        var turning = 0.0
        for contact in contacts where contact.isContinuing {
            let before = contact.previousSurfaceLocation - previousCentroid
            let after = contact.surfaceLocation - currentCentroid
            previousSpread = previousSpread + before.length
            currentSpread = currentSpread + after.length
            if before.length >= Self.minimumRadiusForAngle && after.length >= Self.minimumRadiusForAngle {
                turnSum = turnSum + Trigonometry.angle(from: before, to: after)
                turning += 1
            }
        }
        previousSpread = previousSpread / n
        currentSpread = currentSpread / n
        spread = currentSpread
        spreadRatio = previousSpread >= Self.minimumSpread ? currentSpread / previousSpread : 1
        spreadChange = currentSpread - previousSpread
        turn = turning > 0 ? turnSum / turning : .zero
    }
}

/// One region (or the top level) with its touch sequence and recognizers. A sequence starts
/// at the first touch-down the engine offers the region and ends at its last lift; fingers
/// offered meanwhile join it. Which recognizers run, and which report, is the sequence's
/// `RegionRoles`; the engine relays wins between regions (`yield`).
struct RegionRecognizers {
    private enum Sequence {
        case idle
        case tracking(primary: UInt32)
        /// Cancelled (palm, cancel-all), or begun by a finger that was already down (stream
        /// started mid-touch, SYN_DROPPED): its fingers are ignored until the last one lifts.
        case ignored
    }

    /// Index in the engine's region list (innermost first).
    let index: Int
    /// nil for the top level (no region rectangle: press is never cancelled by leaving).
    let rect: Rect?
    let enabled: GestureKindSet
    let fallThrough: Bool
    let simultaneous: GestureKindSet
    let highPriority: GestureKindSet
    /// The region's thresholds and reporter, passed to every recognizer call.
    var context: RecognizerContext
    private var sequence: Sequence = .idle
    private(set) var contacts: [TrackedContact] = []
    private var cancelRequested = false
    /// Roles for the next sequence, set when its first contact is added.
    private var nextRoles = RegionRoles.none
    /// The touch the next sequence's events are stamped with (`GestureEvent.touch`).
    private var nextTouch: UInt32 = 0
    /// A finger joined whose press belongs to this region: the press begins (again) for it.
    private var joinerPresses = false
    private var roles = RegionRoles.none
    /// Most fingers the device counted (BTN_TOOL_*) during the sequence.
    private var countedFingers = 0
    /// The fingers lifting one after the other that end the sequence (`FinalLifts`).
    private var finalLifts = FinalLifts()
    /// Some finger of the sequence has stayed on the region's rectangle.
    private var fingersInside = true
    /// The time of the sequence's previous frame: where a frame's motion started from.
    private var previousFrameTime = Timestamp.zero
    private var arena = GestureArena()
    private var press = PressRecognizer()
    private var tap = TapRecognizer()
    private var longPress = LongPressRecognizer()
    private var drag = DragRecognizer()
    private var pinch = TransformRecognizer(.pinch)
    private var rotate = TransformRecognizer(.rotate)

    /// Contacts one region keeps without growing its storage.
    static let contactCapacity = 16

    init(
        index: Int, name: String?, rect: Rect?, settings: GestureSettings, fallThrough: Bool = true,
        simultaneous: Set<GestureKind> = [], highPriority: Set<GestureKind> = []
    ) {
        self.index = index
        self.rect = rect
        enabled = GestureKindSet(settings.enabled)
        self.fallThrough = fallThrough
        self.simultaneous = GestureKindSet(simultaneous)
        self.highPriority = GestureKindSet(highPriority)
        context = RecognizerContext(
            thresholds: Thresholds(settings), reporter: Reporter(region: name, rect: rect, reported: .none, log: nil))
        contacts.reserveCapacity(Self.contactCapacity)
    }

    var isIdle: Bool {
        switch sequence {
        case .idle: contacts.isEmpty
        case .tracking, .ignored: false
        }
    }

    /// The touch this region's live sequence stamps its events with; nil when not tracking.
    var trackedTouch: UInt32? {
        switch sequence {
        case .tracking: context.reporter.touch
        case .idle, .ignored: nil
        }
    }

    /// Ignoring its fingers until they all lift (cancelled, or begun unobserved).
    var isIgnoring: Bool {
        switch sequence {
        case .ignored: true
        case .idle, .tracking: false
        }
    }

    func owns(_ id: UInt32) -> Bool { contacts.contains { $0.id == id } }

    /// Whether this region's sequence holds any of `others`.
    func sharesContact(with others: [TrackedContact]) -> Bool {
        contacts.contains { contact in others.contains { $0.id == contact.id } }
    }

    /// Whether every contact of `frame` belongs to this region's sequence.
    func holdsAll(of frame: TouchFrame) -> Bool {
        frame.contacts.allSatisfy { owns($0.id) }
    }

    /// The earliest timer this region needs.
    var nextDeadline: Timestamp? {
        switch (longPress.deadline, tap.deadline) {
        case (nil, nil): nil
        case (let a?, nil): a
        case (nil, let b?): b
        case (let a?, let b?): min(a, b)
        }
    }

    // MARK: Input from the engine

    /// Offers a contact that touched down (or was first seen) in this region's chain;
    /// `roles` and `touch` (the touch whose press brackets it) apply when it starts a new
    /// sequence.
    mutating func add(_ contact: Contact, unobserved: Bool, generation: UInt32, roles: RegionRoles, touch: UInt32) {
        if contacts.isEmpty {
            nextRoles = roles
            nextTouch = touch
        }
        if case .tracking = sequence, roles.reported.contains(.press), roles.exclusive.contains(.press), !unobserved {
            joinerPresses = true
        }
        contacts.append(
            TrackedContact(
                id: contact.id, startLocation: contact.location, surfaceStart: contact.surfaceLocation,
                previousLocation: contact.location, previousSurfaceLocation: contact.surfaceLocation,
                location: contact.location, surfaceLocation: contact.surfaceLocation,
                unobserved: unobserved, joined: true, lifting: false, seen: generation))
        update(contact, generation: generation)
    }

    /// Updates the contact if this region's sequence holds it; returns whether it does.
    @discardableResult
    mutating func update(_ contact: Contact, generation: UInt32) -> Bool {
        guard let index = contacts.firstIndex(where: { $0.id == contact.id }) else { return false }
        contacts[index].location = contact.location
        contacts[index].surfaceLocation = contact.surfaceLocation
        contacts[index].seen = generation
        switch contact.phase {
        case .began, .moved:
            break
        case .ended:
            contacts[index].lifting = true
        case .cancelled:
            contacts[index].lifting = true
            cancelRequested = true
        }
        return true
    }

    /// Runs the recognizers on the frame's changes (after every contact was `add`ed or
    /// `update`d). Contacts the frame did not mention count as lifted. Wins of this region's
    /// exclusive members go to `claims` for the engine to relay; the engine calls `endFrame`
    /// once every region has run.
    mutating func finishFrame<S: GestureSink>(
        time: Timestamp, generation: UInt32, deviceFingers: Int, surface: PhysicalSize, claims: inout [ArenaClaim], sink: inout S
    ) {
        if contacts.isEmpty { return }
        for index in contacts.indices where contacts[index].seen != generation {
            contacts[index].lifting = true
        }
        // What the sequence does with this frame is settled first, and the roles it reports
        // with, so that every recognizer told of the frame reports with them.
        var beginning: GestureArena.Members?
        let cancelling: Bool
        switch sequence {
        case .ignored:
            cancelRequested = false
            return
        case .idle:
            if cancelRequested || contacts[0].unobserved {
                cancelRequested = false
                sequence = .ignored
                context.reporter.transition("sequence", Sequence.idle, "touch-down-unobserved-or-cancelled", sequence)
                return
            }
            beginning = startSequence()
            cancelling = false
        case .tracking:
            cancelling = cancelRequested
            if !cancelling && joinerPresses {
                // A finger whose press is this region's joined: the region reports presses now.
                roles.exclusive.insert(.press)
                roles.reported.insert(.press)
                context.reporter.reported = roles.reported
            }
        }
        if let members = beginning {
            beginSequence(members, time: time, deviceFingers: deviceFingers, surface: surface, into: &sink)
        }
        if cancelling {
            cancel(time: time, deviceFingers: deviceFingers, claims: &claims, into: &sink)
        } else {
            countedFingers = max(countedFingers, deviceFingers)
            let motion = FrameMotion(contacts: contacts, rect: rect, deviceFingers: deviceFingers)
            decide(motion, time: time, claims: &claims, into: &sink)
            previousFrameTime = time
        }
    }

    /// Fires the timers due at or before `time`, each stamped with its own deadline.
    mutating func fireTimers<S: GestureSink>(upTo time: Timestamp, claims: inout [ArenaClaim], sink: inout S) {
        if let deadline = longPress.deadline, deadline <= time {
            // Held for the long-press duration where a long press is enabled: it is no tap,
            // whatever else happens.
            let moment = Moment(time: deadline, fingers: contacts.count, location: centroid())
            if roles.longPressEndsTap { settle(.reject("held-too-long"), of: .tap, at: moment, claims: &claims, into: &sink) }
            // A long press this region does not report (disabled, or only the tap's timer)
            // does not claim: in a region without long press, a held touch may still drag.
            var request = longPress.judge(at: deadline)
            if case .claim(let reason) = request, !roles.reported.contains(.longPress) { request = .reject(reason) }
            settle(request, of: .longPress, at: moment, claims: &claims, into: &sink)
            // The timer is spent whatever the arena said (a long press that runs only as the
            // tap's timer is no member to be told).
            longPress.fail("deadline", in: context)
        }
        if let deadline = tap.deadline, deadline <= time {
            tap.deadlineReached(time: deadline, in: context, into: &sink)
        }
    }

    /// A member of another region that holds one of this sequence's contacts won the touch
    /// (`ArenaClaim`): this region's exclusive members of another interpretation lose (its
    /// simultaneous ones go on). When the winner encloses this region and none of this
    /// region's own gestures can still take the touch, the press ends `cancelled`: the touch
    /// was taken from this region, as a scroll view cancels the touches of the button it
    /// scrolls.
    mutating func yield<S: GestureSink>(to claim: ArenaClaim, time: Timestamp, claims: inout [ArenaClaim], sink: inout S) {
        guard case .tracking = sequence else { return }
        if claim.cancels {
            cancel(time: time, deviceFingers: 0, claims: &claims, into: &sink)
        } else {
            let moment = Moment(time: time, fingers: contacts.count, location: centroid())
            for member in GestureArena.everyMember
            where isExclusive(member)
                && (claim.defeats.contains(member) || !exclusiveKinds(of: member).intersection(claim.kinds).isEmpty)
            {
                settle(.reject("other-region-won"), of: member, at: moment, claims: &claims, into: &sink)
            }
            if claim.region > index && !holdsTouch {
                press.cancel(
                    time: time, location: moment.location, fingers: moment.fingers, "enclosing-region-won", .released, in: context)
            }
        }
    }

    /// A press ended or was cancelled in this step and waits for `flushPress`.
    var hasPressToReport: Bool { press.isClosing }

    /// Reports a press that ended in this step; the engine calls it after every region ran,
    /// so the press comes after every other gesture of its touch.
    mutating func flushPress<S: GestureSink>(sink: inout S) {
        press.flush(in: context, into: &sink)
    }

    /// Device removed or SYN_DROPPED: every gesture in flight ends `cancelled`, held-back
    /// taps (complete taps waiting for their count) are reported, and every contact is forgotten.
    mutating func cancelAll<S: GestureSink>(time: Timestamp, sink: inout S) {
        switch sequence {
        case .tracking:
            // Every region cancels: nothing to relay.
            var relayed: [ArenaClaim] = []
            cancel(time: time, deviceFingers: 0, claims: &relayed, into: &sink)
        case .idle, .ignored:
            tap.flushHeldBack(time: time, in: context, into: &sink)
        }
        contacts.removeAll(keepingCapacity: true)
        cancelRequested = false
        sequence = .idle
        resetRecognizers()
    }
    /// Drops lifted contacts and makes this frame's positions the previous ones.
    mutating func endFrame() {
        // Most frames lift nothing: a check, not a partition of the array.
        if contacts.contains(where: { $0.lifting }) { contacts.removeAll { $0.lifting } }
        for index in contacts.indices {
            contacts[index].previousLocation = contacts[index].location
            contacts[index].previousSurfaceLocation = contacts[index].surfaceLocation
            contacts[index].joined = false
        }
        if contacts.isEmpty {
            switch sequence {
            case .ignored:
                sequence = .idle
                resetRecognizers()
            case .idle, .tracking:
                break
            }
        }
    }

    // MARK: Sequence

    /// When and where a decision happens, for the members told about it.
    private struct Moment {
        var time: Timestamp
        var fingers: Int
        var location: Point
    }

    /// Whether a gesture this region owns has taken the touch or still may: an exclusive
    /// arena member still in, or a pinch or rotate it owns and reports.
    private var holdsTouch: Bool {
        GestureArena.everyMember.contains { isExclusive($0) && arena.admits($0) }
            || (roles.exclusive.contains(.pinch) && roles.reported.contains(.pinch))
            || (roles.exclusive.contains(.rotate) && roles.reported.contains(.rotate))
    }

    private func isExclusive(_ member: GestureArena.Member) -> Bool {
        !exclusiveKinds(of: member).isEmpty
    }

    /// The kinds `member` recognizes here in competition with other regions.
    private func exclusiveKinds(of member: GestureArena.Member) -> GestureKindSet {
        var kinds = GestureKindSet.none
        switch member {
        case .tap:
            if roles.exclusive.contains(.tap) { kinds.insert(.tap) }
        case .longPress:
            if roles.exclusive.contains(.longPress) { kinds.insert(.longPress) }
        case .drag:
            if roles.exclusive.contains(.drag) { kinds.insert(.drag) }
            if roles.exclusive.contains(.swipe) { kinds.insert(.swipe) }
        }
        return kinds
    }

    /// A sequence starts with this frame: takes its roles and opens its arena; returns the
    /// arena's members (then told of the touch-down by `beginSequence`).
    private mutating func startSequence() -> GestureArena.Members {
        roles = nextRoles
        context.reporter.reported = roles.reported
        context.reporter.touch = nextTouch
        sequence = .tracking(primary: contacts[0].id)
        context.reporter.transition("sequence", Sequence.idle, "touch-down", sequence)
        countedFingers = 0
        finalLifts = FinalLifts()
        fingersInside = true
        joinerPresses = false
        var members = GestureArena.Members.none
        if roles.runs(.tap) { members.insert(.tap) }
        if roles.runs(.longPress) { members.insert(.longPress) }
        if roles.runs(.drag) || roles.runs(.swipe) { members.insert(.drag) }
        arena.open(with: members)
        return members
    }

    /// Tells the recognizers the sequence runs (`members` of the arena, and press) of its
    /// first touch-down.
    private mutating func beginSequence<S: GestureSink>(
        _ members: GestureArena.Members, time: Timestamp, deviceFingers: Int, surface: PhysicalSize,
        into sink: inout S
    ) {
        let first = contacts[0]
        if roles.runs(.press) {
            press.touchDown(time: time, location: first.location, fingers: max(contacts.count, deviceFingers), in: context, into: &sink)
        }
        if members.contains(.tap) {
            tap.sequenceBegan(time: time, location: first.startLocation, surfaceLocation: first.surfaceStart, in: context, into: &sink)
        }
        // The long-press timer also ends a tap held too long, where a long press is enabled.
        if members.contains(.longPress) || (members.contains(.tap) && roles.longPressEndsTap) {
            longPress.touchDown(time: time, in: context)
        }
        if members.contains(.drag) {
            drag.touchDown(time: time, location: centroid(), surface: surface, in: context)
        }
        contacts[0].joined = false
    }

    /// Cancels every gesture of the sequence (the press is reported last, at the engine's
    /// flush) and has the sequences sharing its fingers cancelled too.
    private mutating func cancel<S: GestureSink>(
        time: Timestamp, deviceFingers: Int, claims: inout [ArenaClaim], into sink: inout S
    ) {
        let fingers = max(contacts.count, deviceFingers)
        let location = centroid()
        tap.cancel(time: time, in: context, into: &sink)
        longPress.cancel(time: time, fingers: fingers, location: location, in: context, into: &sink)
        drag.cancel(time: time, fingers: fingers, in: context, into: &sink)
        pinch.cancel(time: time, fingers: fingers, location: location, in: context, into: &sink)
        rotate.cancel(time: time, fingers: fingers, location: location, in: context, into: &sink)
        press.cancel(time: time, location: location, fingers: fingers, "cancel", .touchCancelled, in: context)
        cancelRequested = false
        let old = sequence
        sequence = .ignored
        context.reporter.transition("sequence", old, "cancel", sequence)
        claims.append(ArenaClaim(region: index, defeats: .none, cancels: true))
    }

    /// One frame of a live sequence, on its motion summary: tells each recognizer what
    /// happened (joins, leaving the region, movement, lifts, the end) in that order, and
    /// settles what the arena members ask for by their own rules (`ArenaRequest`). What is
    /// decided here is only what no single recognizer can: a long press that has begun
    /// holds the touch against the drag, and pinch and rotate begin only while neither
    /// holds it.
    private mutating func decide<S: GestureSink>(
        _ motion: FrameMotion, time: Timestamp, claims: inout [ArenaClaim], into sink: inout S
    ) {
        let moment = Moment(time: time, fingers: motion.fingers, location: motion.centroid)
        if joinerPresses {
            // A finger whose press is this region's joined a sequence that had none (its
            // first touch pressed elsewhere), or whose press is over: it presses now (the
            // region took the press role before the frame, in `finishFrame`).
            joinerPresses = false
            fingersInside = true
            let joiner = contacts.last { $0.joined } ?? contacts[0]
            press.touchDown(time: time, location: joiner.location, fingers: motion.fingers, in: context, into: &sink)
        }
        for contact in contacts where motion.joined > 0 && contact.joined {
            tap.fingerJoined(
                time: time, location: contact.startLocation, surfaceLocation: contact.surfaceStart, unobserved: contact.unobserved,
                in: context, into: &sink)
            settle(longPress.fingerJoined(unobserved: contact.unobserved), of: .longPress, at: moment, claims: &claims, into: &sink)
        }

        // Every finger left the region: the press is cancelled, and the touch is no tap or
        // long press of this region any more (its other gestures go on).
        if fingersInside && motion.allOutside {
            fingersInside = false
            press.cancel(time: time, location: motion.centroid, fingers: motion.fingers, "left-region", .released, in: context)
            rejectTapAndLongPress("left-region", at: moment, claims: &claims, into: &sink)
        }

        // Each member judges how far the touch went by its own limit (a member already out
        // is not asked: its request would change nothing, and asking on every frame of a
        // drag cost two calls per frame).
        if arena.admits(.tap) {
            settle(tap.judge(maximumTravel: motion.maximumTravel, in: context), of: .tap, at: moment, claims: &claims, into: &sink)
        }
        if arena.admits(.longPress) {
            settle(
                longPress.judge(maximumTravel: motion.maximumTravel, in: context), of: .longPress, at: moment, claims: &claims,
                into: &sink)
        }

        // Pinch and rotate: not arena members; when one begins, tap and long press lose
        // here, and in the other regions of the touch when this region owns it. They begin
        // only while neither a long press nor the drag holds the touch: fingers that move
        // together are a drag, and the turn and spread their jitter adds up to over a long
        // stroke are no rotation or pinch (a drag may still begin once they have: a
        // pinch's drift).
        if motion.moving > 0 {
            drag.moved(time: time, delta: motion.delta, surfaceDelta: motion.surfaceDelta)
        }
        if motion.continuing >= 2 {
            let touchTaken = longPress.hasBegun || drag.takesTouch(in: context)
            var began = false
            if roles.runs(.pinch) {
                let pinchBegan = pinch.moved(
                    time: time, since: previousFrameTime, spread: motion.spread, spreadRatio: motion.spreadRatio,
                    spreadChange: motion.spreadChange, turn: motion.turn, touchTaken: touchTaken, fingers: motion.fingers,
                    location: motion.centroid, in: context, into: &sink)
                began = began || (pinchBegan && roles.exclusive.contains(.pinch))
                if pinchBegan { rejectTapAndLongPress("pinch-began", at: moment, claims: &claims, into: &sink) }
            }
            if roles.runs(.rotate) {
                let rotateBegan = rotate.moved(
                    time: time, since: previousFrameTime, spread: motion.spread, spreadRatio: motion.spreadRatio,
                    spreadChange: motion.spreadChange, turn: motion.turn, touchTaken: touchTaken, fingers: motion.fingers,
                    location: motion.centroid, in: context, into: &sink)
                began = began || (rotateBegan && roles.exclusive.contains(.rotate))
                if rotateBegan { rejectTapAndLongPress("rotate-began", at: moment, claims: &claims, into: &sink) }
            }
            if began { claims.append(ArenaClaim(region: index, defeats: GestureArena.Members([.tap, .longPress]))) }
        }

        // Drag (its movement was added before pinch and rotate).
        switch drag.judge(in: context) {
        case .claim(let reason):
            // A long press that has begun holds the touch: the drag loses.
            settle(longPress.hasBegun ? .reject(reason) : .claim(reason), of: .drag, at: moment, claims: &claims, into: &sink)
        case .none, .reject:
            if motion.anyMoved || (motion.fingersChanged && motion.down > 0) {
                drag.changed(time: time, fingers: motion.fingers, in: context, into: &sink)
            }
        }
        if motion.anyMoved {
            longPress.moved(time: time, fingers: motion.fingers, location: motion.centroid, in: context, into: &sink)
        }

        // Lifts.
        finalLifts.frame(motion, time: time, window: context.thresholds.tapFingerWindow)
        for _ in 0..<motion.lifting {
            tap.fingerLifted(time: time, in: context, into: &sink)
        }
        if motion.down < 2 && !(pinch.isIdle && rotate.isIdle) {
            pinch.fingersBelowTwo(time: time, fingers: motion.fingers, location: motion.centroid, in: context, into: &sink)
            rotate.fingersBelowTwo(time: time, fingers: motion.fingers, location: motion.centroid, in: context, into: &sink)
        }
        if motion.down == 0 {
            drag.lastLift(time: time, fingers: finalLifts.fingers, in: context, into: &sink)
            longPress.lastLift(time: time, fingers: motion.fingers, location: motion.centroid, in: context, into: &sink)
            settle(tap.judgeLastLift(), of: .tap, at: moment, claims: &claims, into: &sink)
            tap.sequenceEnded(time: time, in: context, into: &sink)
            press.lastLift(time: time, location: motion.centroid, fingers: motion.fingers, in: context)
            let old = sequence
            sequence = .idle
            context.reporter.transition("sequence", old, "last-lift", sequence)
        }
    }

    /// Puts what `member` asks for to the arena and settles the verdict.
    private mutating func settle<S: GestureSink>(
        _ request: ArenaRequest, of member: GestureArena.Member, at moment: Moment, claims: inout [ArenaClaim],
        into sink: inout S
    ) {
        switch request {
        case .none:
            break
        case .claim(let reason):
            settle(arena.claim(member), reason, at: moment, claims: &claims, into: &sink)
        case .reject(let reason):
            settle(arena.reject(member), reason, at: moment, claims: &claims, into: &sink)
        }
    }

    /// Tells the members what `verdict` decided: the winner that it won (it begins, or is
    /// recognized), the losers that they lost. A win of a member this region owns
    /// (`RegionRoles.exclusive`) is a claim on the touch, relayed by the engine to the other
    /// regions holding its contacts.
    private mutating func settle<S: GestureSink>(
        _ verdict: GestureArena.Verdict, _ reason: StaticString, at moment: Moment, claims: inout [ArenaClaim],
        into sink: inout S
    ) {
        if verdict.losers.contains(.tap) { tap.fail(time: moment.time, reason, in: context, into: &sink) }
        if verdict.losers.contains(.longPress) { longPress.fail(reason, in: context) }
        if verdict.losers.contains(.drag) { drag.fail(reason, in: context) }
        guard let winner = verdict.winner else { return }
        let defeats: GestureArena.Members
        switch winner {
        case .tap:
            tap.recognize(time: moment.time, deviceFingers: countedFingers, in: context, into: &sink)
            defeats = GestureArena.Members([.longPress, .drag])
        case .longPress:
            longPress.begin(time: moment.time, fingers: moment.fingers, location: moment.location, in: context, into: &sink)
            defeats = GestureArena.Members([.tap, .drag])
        case .drag:
            drag.begin(time: moment.time, fingers: moment.fingers, in: context, into: &sink)
            defeats = GestureArena.Members([.tap, .longPress])
        }
        if isExclusive(winner) { claims.append(ArenaClaim(region: index, defeats: defeats, kinds: exclusiveKinds(of: winner))) }
    }

    private mutating func rejectTapAndLongPress<S: GestureSink>(
        _ reason: StaticString, at moment: Moment, claims: inout [ArenaClaim], into sink: inout S
    ) {
        settle(.reject(reason), of: .tap, at: moment, claims: &claims, into: &sink)
        settle(.reject(reason), of: .longPress, at: moment, claims: &claims, into: &sink)
    }

    private mutating func resetRecognizers() {
        arena.open(with: .none)
        press.reset()
        tap.reset()
        longPress.reset()
        drag.reset()
        pinch.reset()
        rotate.reset()
    }

    private func centroid() -> Point {
        var sum = Point.zero
        for contact in contacts { sum = sum + contact.location }
        return contacts.isEmpty ? .zero : sum / Double(contacts.count)
    }
}
