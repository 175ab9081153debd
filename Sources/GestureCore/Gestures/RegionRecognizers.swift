/// A finger as one region's touch sequence sees it.
struct TrackedContact {
    var id: UInt32
    var startLocation: Point
    var startMM: Point
    var previousLocation: Point
    var previousMM: Point
    var location: Point
    var millimetres: Point
    var unobserved: Bool
    /// Touched down in the current frame.
    var joined: Bool
    /// Lifted, cancelled or vanished in the current frame (its location is the last one).
    var lifting: Bool
    /// The frame generation that last mentioned it.
    var seen: UInt32
}

/// One region (or the defaults) with its touch sequence and recognizers. A sequence starts
/// at the first touch-down in the region and ends at its last lift; fingers that go down in
/// the region meanwhile join it.
struct RegionRecognizers {
    private enum Sequence {
        case idle
        case tracking(primary: UInt32)
        /// Cancelled (palm, cancel-all): its fingers are ignored until the last one lifts.
        case cancelled
    }

    /// nil for the defaults (no region rectangle: press is never cancelled by leaving).
    let rect: Rect?
    var reporter: Reporter
    let thresholds: Thresholds
    private var sequence: Sequence = .idle
    private(set) var contacts: [TrackedContact] = []
    private var cancelRequested = false
    /// Most fingers the device counted (BTN_TOOL_*) during the sequence.
    private var countedFingers = 0
    private var arena = GestureArena()
    private var press = PressRecognizer()
    private var tap = TapRecognizer()
    private var longPress = LongPressRecognizer()
    private var drag = DragRecognizer()
    private var pinch = TransformRecognizer(.pinch)
    private var rotate = TransformRecognizer(.rotate)

    /// Contacts one region keeps without growing its storage.
    static let contactCapacity = 16
    /// Fingers closer than this to their centroid carry no usable angle (mm).
    static let minimumRadiusForAngleMM = 0.5
    /// A spread below this cannot serve as a scale reference (mm).
    static let minimumSpreadMM = 0.1

    init(name: String?, rect: Rect?, settings: GestureSettings) {
        self.rect = rect
        reporter = Reporter(region: name, enabled: EnabledGestures(settings.enabled), log: nil)
        thresholds = Thresholds(settings)
        contacts.reserveCapacity(Self.contactCapacity)
    }

    var isIdle: Bool {
        switch sequence {
        case .idle: contacts.isEmpty
        case .tracking, .cancelled: false
        }
    }

    func owns(_ id: UInt32) -> Bool { contacts.contains { $0.id == id } }

    /// The earliest timer this region needs.
    var nextDeadline: UInt64? {
        switch (longPress.deadline, tap.deadline) {
        case (nil, nil): nil
        case (let a?, nil): a
        case (nil, let b?): b
        case (let a?, let b?): min(a, b)
        }
    }

    // MARK: Input from the engine

    mutating func add(_ contact: Contact, unobserved: Bool, generation: UInt32) {
        contacts.append(TrackedContact(
            id: contact.id, startLocation: contact.location, startMM: contact.millimetres,
            previousLocation: contact.location, previousMM: contact.millimetres,
            location: contact.location, millimetres: contact.millimetres,
            unobserved: unobserved, joined: true, lifting: false, seen: generation))
        update(contact, generation: generation)
    }

    mutating func update(_ contact: Contact, generation: UInt32) {
        guard let index = contacts.firstIndex(where: { $0.id == contact.id }) else { return }
        contacts[index].location = contact.location
        contacts[index].millimetres = contact.millimetres
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
    }

    /// Runs the recognizers on the frame's changes (after every contact was `add`ed or
    /// `update`d). Contacts the frame did not mention count as lifted.
    mutating func finishFrame<S: GestureSink>(time: UInt64, generation: UInt32, deviceFingers: Int, surface: PhysicalSize, sink: inout S) {
        if contacts.isEmpty { return }
        for index in contacts.indices where contacts[index].seen != generation {
            contacts[index].lifting = true
        }
        switch sequence {
        case .cancelled:
            cancelRequested = false
            endFrame()
            return
        case .idle:
            if cancelRequested {
                cancelRequested = false
                sequence = .cancelled
                endFrame()
                return
            }
            beginSequence(time: time, deviceFingers: deviceFingers, sink: &sink)
        case .tracking:
            if cancelRequested {
                cancel(time: time, deviceFingers: deviceFingers, sink: &sink)
                return
            }
        }
        guard case .tracking(let primary) = sequence else { return }
        trackFrame(time: time, primary: primary, deviceFingers: deviceFingers, surface: surface, sink: &sink)
    }

    /// Fires the timers due at or before `time`, each stamped with its own deadline.
    mutating func fireTimers<S: GestureSink>(upTo time: UInt64, sink: inout S) {
        if let deadline = longPress.deadline, deadline <= time {
            // Held for the long-press duration: it is no tap, whatever else happens.
            tap.fail(time: deadline, "held-too-long", reporter: reporter, sink: &sink)
            arena.leave(.tap)
            let wins = reporter.enabled.contains(.longPress) && arena.claim(.longPress)
            if wins { drag.fail("long-press-won", reporter: reporter) }
            longPress.deadlineReached(time: deadline, wins: wins, fingers: contacts.count, location: centroid(), reporter: reporter, sink: &sink)
        }
        if let deadline = tap.deadline, deadline <= time {
            tap.deadlineReached(time: deadline, reporter: reporter, sink: &sink)
        }
    }

    /// Device removed or SYN_DROPPED: every gesture in flight ends `cancelled`, held-back
    /// taps (complete taps waiting for their count) are reported, and every contact is forgotten.
    mutating func cancelAll<S: GestureSink>(time: UInt64, sink: inout S) {
        switch sequence {
        case .tracking:
            cancel(time: time, deviceFingers: 0, sink: &sink)
        case .idle, .cancelled:
            tap.flushHeldBack(time: time, reporter: reporter, sink: &sink)
        }
        contacts.removeAll(keepingCapacity: true)
        cancelRequested = false
        sequence = .idle
        resetRecognizers()
    }

    // MARK: Sequence

    private mutating func beginSequence<S: GestureSink>(time: UInt64, deviceFingers: Int, sink: inout S) {
        let first = contacts[0]
        sequence = .tracking(primary: first.id)
        reporter.transition("sequence", Sequence.idle, "touch-down", sequence)
        arena.reset()
        countedFingers = 0
        let fingers = max(contacts.count, deviceFingers)
        press.touchDown(time: time, location: first.location, fingers: fingers, unobserved: first.unobserved, reporter: reporter, sink: &sink)
        tap.sequenceBegan(time: time, location: first.startLocation, locationMM: first.startMM, unobserved: first.unobserved, thresholds: thresholds, reporter: reporter, sink: &sink)
        longPress.touchDown(time: time, unobserved: first.unobserved, duration: thresholds.longPressDurationUS, reporter: reporter)
        if first.unobserved {
            arena.leave(.tap)
            arena.leave(.longPress)
        }
        drag.touchDown(time: time, location: centroid(), locationMM: centroidMM(), reporter: reporter)
        contacts[0].joined = false
    }

    private mutating func cancel<S: GestureSink>(time: UInt64, deviceFingers: Int, sink: inout S) {
        let fingers = max(contacts.count, deviceFingers)
        let location = centroid()
        tap.cancel(time: time, reporter: reporter, sink: &sink)
        press.cancel(time: time, location: location, fingers: fingers, reporter: reporter, sink: &sink)
        longPress.cancel(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
        drag.cancel(time: time, fingers: fingers, thresholds: thresholds, reporter: reporter, sink: &sink)
        pinch.cancel(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
        rotate.cancel(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
        cancelRequested = false
        let old = sequence
        sequence = .cancelled
        reporter.transition("sequence", old, "cancel", sequence)
        endFrame()
    }

    /// One frame of a live sequence: joins, slop, pinch/rotate, drag, lifts, end.
    private mutating func trackFrame<S: GestureSink>(time: UInt64, primary: UInt32, deviceFingers: Int, surface: PhysicalSize, sink: inout S) {
        countedFingers = max(countedFingers, deviceFingers)
        // Joins.
        for contact in contacts where contact.joined {
            tap.fingerJoined(time: time, location: contact.startLocation, locationMM: contact.startMM, unobserved: contact.unobserved, thresholds: thresholds, reporter: reporter, sink: &sink)
            if contact.unobserved { longPress.fail("unobserved-finger-joined", reporter: reporter) }
        }

        // Motion of the fingers that were already down (joins and lifts never jump).
        var continuing = 0
        var down = 0
        var previousSum = Point.zero, currentSum = Point.zero
        var previousSumMM = Point.zero, currentSumMM = Point.zero
        var maximumTravelMM = 0.0
        var primaryLocation: Point?
        var anyMoved = false
        var fingersChanged = false
        for contact in contacts {
            if !contact.lifting { down += 1 }
            if contact.joined || contact.lifting { fingersChanged = true }
            if contact.id == primary { primaryLocation = contact.location }
            maximumTravelMM = max(maximumTravelMM, contact.millimetres.distance(to: contact.startMM))
            guard !contact.joined else { continue }
            continuing += 1
            previousSum = previousSum + contact.previousLocation
            currentSum = currentSum + contact.location
            previousSumMM = previousSumMM + contact.previousMM
            currentSumMM = currentSumMM + contact.millimetres
            if contact.location != contact.previousLocation { anyMoved = true }
        }
        let fingers = max(contacts.count, deviceFingers)
        let location = centroid()

        // The primary touch left the region: the press is cancelled, and the touch is
        // no tap or long press of this region any more.
        if let rect, let primaryLocation, press.isPressing, !rect.contains(primaryLocation) {
            press.cancel(time: time, location: primaryLocation, fingers: fingers, reporter: reporter, sink: &sink)
            failTapAndLongPress(time: time, "left-region", sink: &sink)
        }

        // Slop.
        if maximumTravelMM > thresholds.tapSlopMM {
            tap.fail(time: time, "beyond-slop", reporter: reporter, sink: &sink)
            arena.leave(.tap)
        }
        if maximumTravelMM > thresholds.longPressMaximumDistanceMM {
            longPress.fail("beyond-maximum-distance", reporter: reporter)
            arena.leave(.longPress)
        }

        // Pinch and rotate.
        if continuing >= 2 {
            let n = Double(continuing)
            let previousCentroidMM = previousSumMM / n
            let currentCentroidMM = currentSumMM / n
            var previousSpread = 0.0, currentSpread = 0.0, turn = 0.0, turning = 0.0
            for contact in contacts where !contact.joined {
                let before = contact.previousMM - previousCentroidMM
                let after = contact.millimetres - currentCentroidMM
                previousSpread += before.length
                currentSpread += after.length
                if before.length >= Self.minimumRadiusForAngleMM && after.length >= Self.minimumRadiusForAngleMM {
                    let cross = before.x * after.y - before.y * after.x
                    let dot = before.x * after.x + before.y * after.y
                    turn += Trigonometry.atan2(cross, dot) * Trigonometry.degreesPerRadian
                    turning += 1
                }
            }
            previousSpread /= n
            currentSpread /= n
            let ratio = previousSpread >= Self.minimumSpreadMM ? currentSpread / previousSpread : 1
            let degrees = turning > 0 ? turn / turning : 0
            let mayBegin = !longPress.hasBegun
            let pinchBegan = pinch.moved(time: time, spreadRatio: ratio, spreadChangeMM: currentSpread - previousSpread, degrees: degrees, mayBegin: mayBegin, fingers: fingers, location: location, thresholds: thresholds, reporter: reporter, sink: &sink)
            let rotateBegan = rotate.moved(time: time, spreadRatio: ratio, spreadChangeMM: currentSpread - previousSpread, degrees: degrees, mayBegin: mayBegin, fingers: fingers, location: location, thresholds: thresholds, reporter: reporter, sink: &sink)
            if pinchBegan || rotateBegan {
                failTapAndLongPress(time: time, "pinch-or-rotate-began", sink: &sink)
            }
        }

        // Drag.
        if continuing > 0 {
            let n = Double(continuing)
            drag.moved(time: time, delta: (currentSum - previousSum) / n, deltaMM: (currentSumMM - previousSumMM) / n)
        }
        if drag.wantsToBegin(thresholds: thresholds) {
            if !longPress.hasBegun && arena.claim(.drag) {
                failTapAndLongPress(time: time, "drag-won", sink: &sink)
                drag.begin(time: time, fingers: fingers, thresholds: thresholds, reporter: reporter, sink: &sink)
            } else {
                drag.fail("arena-lost", reporter: reporter)
                arena.leave(.drag)
            }
        } else if anyMoved || (fingersChanged && down > 0) {
            drag.changed(time: time, fingers: fingers, thresholds: thresholds, reporter: reporter, sink: &sink)
        }
        if anyMoved {
            longPress.moved(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
        }

        // Lifts.
        for contact in contacts where contact.lifting {
            tap.fingerLifted(time: time, thresholds: thresholds, reporter: reporter, sink: &sink)
        }
        if down < 2 {
            pinch.fingersBelowTwo(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
            rotate.fingersBelowTwo(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
        }
        if down == 0 {
            drag.lastLift(time: time, fingers: fingers, thresholds: thresholds, surface: surface, reporter: reporter, sink: &sink)
            longPress.lastLift(time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
            if tap.isPossible && arena.claim(.tap) {
                tap.recognize(time: time, deviceFingers: countedFingers, thresholds: thresholds, reporter: reporter, sink: &sink)
            } else {
                tap.sequenceEnded(time: time, reporter: reporter, sink: &sink)
            }
            press.lastLift(time: time, location: location, fingers: fingers, reporter: reporter, sink: &sink)
            arena.reset()
            let old = sequence
            sequence = .idle
            reporter.transition("sequence", old, "last-lift", sequence)
        }
        endFrame()
    }

    private mutating func failTapAndLongPress<S: GestureSink>(time: UInt64, _ reason: StaticString, sink: inout S) {
        tap.fail(time: time, reason, reporter: reporter, sink: &sink)
        arena.leave(.tap)
        longPress.fail(reason, reporter: reporter)
        arena.leave(.longPress)
    }

    /// Drops lifted contacts and makes this frame's positions the previous ones.
    private mutating func endFrame() {
        contacts.removeAll { $0.lifting }
        for index in contacts.indices {
            contacts[index].previousLocation = contacts[index].location
            contacts[index].previousMM = contacts[index].millimetres
            contacts[index].joined = false
        }
        if contacts.isEmpty {
            switch sequence {
            case .cancelled:
                sequence = .idle
                resetRecognizers()
            case .idle, .tracking:
                break
            }
        }
    }

    private mutating func resetRecognizers() {
        arena.reset()
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

    private func centroidMM() -> Point {
        var sum = Point.zero
        for contact in contacts { sum = sum + contact.millimetres }
        return contacts.isEmpty ? .zero : sum / Double(contacts.count)
    }
}
