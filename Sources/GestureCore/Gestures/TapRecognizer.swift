import GestureProtocol

/// One recognized tap, remembered for multi-tap counting.
struct TapRecord {
    var lift: Timestamp
    var location: Point
    var surfaceLocation: SurfacePoint
    var fingers: Int
    var count: Int
}

/// tap: all fingers lift before the long-press duration, none beyond the slop, having gone
/// down within the finger window of the first and lifted within it of each other. It judges
/// the slop and the last lift itself and asks its region's arena (`ArenaRequest`); the
/// finger window it enforces on its own. Counts
/// multi-taps across sequences; in exclusive mode holds each tap back until the multi-tap
/// interval closes (or the maximum count is reached, or the next sequence stops being a tap).
struct TapRecognizer {
    /// The current sequence's candidate.
    struct Candidate {
        var firstDown: Timestamp
        var firstLift: Timestamp?
        var fingers: Int
        var startSum: Point
        var surfaceStartSum: SurfacePoint
        /// The tap this sequence may continue.
        var predecessor: TapRecord?
        /// Exclusive mode: the predecessor has not been reported yet.
        var predecessorHeldBack: Bool
    }

    private enum Sequence {
        case idle
        case possible(Candidate)
        case failed
    }

    /// Memory across sequences.
    private enum Chain {
        case empty
        /// Reported tap that the next sequence may continue (non-exclusive).
        case last(TapRecord)
        /// Exclusive: tap not yet reported, reported at `deadline` unless continued.
        case pending(TapRecord, deadline: Timestamp)
    }

    private var sequence: Sequence = .idle
    private var chain: Chain = .empty

    /// The exclusive multi-tap timer, if any.
    var deadline: Timestamp? {
        switch chain {
        case .pending(_, let deadline): deadline
        case .empty, .last: nil
        }
    }

    var isPossible: Bool {
        switch sequence {
        case .possible: true
        case .idle, .failed: false
        }
    }

    /// First touch-down of a sequence: decides whether it continues the previous tap.
    mutating func sequenceBegan<S: GestureSink>(
        time: Timestamp, location: Point, surfaceLocation: SurfacePoint, in context: RecognizerContext, into sink: inout S
    ) {
        var predecessor: TapRecord?
        var heldBack = false
        switch chain {
        case .empty:
            break
        case .last(let record):
            predecessor = record
        case .pending(let record, _):
            predecessor = record
            heldBack = true
        }
        chain = .empty
        if let record = predecessor {
            let inTime = time - record.lift <= context.thresholds.multiTapInterval
            let near = !record.surfaceLocation.distance(to: surfaceLocation).exceeds(context.thresholds.multiTapDistance)
            if !(inTime && near) {
                if heldBack { report(record, time: time, in: context, into: &sink) }
                predecessor = nil
            }
        }
        let old = sequence
        sequence = .possible(
            Candidate(
                firstDown: time, firstLift: nil, fingers: 1, startSum: location, surfaceStartSum: surfaceLocation, predecessor: predecessor,
                predecessorHeldBack: heldBack))
        context.transition("tap", old, "touch-down", sequence)
    }

    mutating func fingerJoined<S: GestureSink>(
        time: Timestamp, location: Point, surfaceLocation: SurfacePoint, unobserved: Bool, in context: RecognizerContext, into sink: inout S
    ) {
        switch sequence {
        case .possible(var candidate):
            let late = time - candidate.firstDown > context.thresholds.tapFingerWindow
            if unobserved || late || candidate.firstLift != nil || candidate.fingers >= Self.maximumFingers {
                fail(time: time, "finger joined", in: context, into: &sink)
                return
            }
            candidate.fingers += 1
            candidate.startSum = candidate.startSum + location
            candidate.surfaceStartSum = candidate.surfaceStartSum + surfaceLocation
            sequence = .possible(candidate)
        case .idle, .failed:
            break
        }
    }

    mutating func fingerLifted<S: GestureSink>(time: Timestamp, in context: RecognizerContext, into sink: inout S) {
        switch sequence {
        case .possible(var candidate):
            let firstLift = candidate.firstLift ?? time
            if time - firstLift > context.thresholds.tapFingerWindow {
                fail(time: time, "lifts apart", in: context, into: &sink)
                return
            }
            candidate.firstLift = firstLift
            sequence = .possible(candidate)
        case .idle, .failed:
            break
        }
    }

    /// The farthest any finger of the touch is from where it touched down: beyond the
    /// slop, the touch is no tap.
    func judge(maximumTravel: Length, in context: RecognizerContext) -> ArenaRequest {
        maximumTravel.exceeds(context.thresholds.tapSlop) ? .reject("beyond-slop") : .none
    }

    /// Every finger lifted: a tap still possible claims the touch (and, told it won, is
    /// `recognize`d).
    func judgeLastLift() -> ArenaRequest {
        isPossible ? .claim("last-lift") : .none
    }

    /// This sequence cannot be a tap (it lost the arena, or failed on its own). In exclusive
    /// mode the tap it was continuing is reported now with its own count (require-to-fail
    /// resolved).
    mutating func fail<S: GestureSink>(time: Timestamp, _ reason: StaticString, in context: RecognizerContext, into sink: inout S) {
        switch sequence {
        case .possible(let candidate):
            if let predecessor = candidate.predecessor, candidate.predecessorHeldBack {
                report(predecessor, time: time, in: context, into: &sink)
            }
            let old = sequence
            sequence = .failed
            context.transition("tap", old, reason, sequence)
        case .idle, .failed:
            break
        }
    }

    /// All fingers lifted and the tap won the arena.
    mutating func recognize<S: GestureSink>(time: Timestamp, deviceFingers: Int, in context: RecognizerContext, into sink: inout S) {
        switch sequence {
        case .possible(let candidate):
            let fingers = min(Self.maximumFingers, max(candidate.fingers, deviceFingers))
            var count = 1
            if let predecessor = candidate.predecessor {
                if predecessor.fingers == fingers {
                    count = predecessor.count + 1
                    if count > context.thresholds.maximumTapCount { count = 1 }
                }
                if count == 1 && candidate.predecessorHeldBack { report(predecessor, time: time, in: context, into: &sink) }
            }
            let n = Double(candidate.fingers)
            let record = TapRecord(
                lift: time, location: candidate.startSum / n, surfaceLocation: candidate.surfaceStartSum / n, fingers: fingers, count: count
            )
            if !context.thresholds.exclusiveMultiTap {
                report(record, time: time, in: context, into: &sink)
                chain = .last(record)
            } else if count >= context.thresholds.maximumTapCount {
                report(record, time: time, in: context, into: &sink)
                chain = .empty
            } else {
                chain = .pending(record, deadline: time + context.thresholds.multiTapInterval)
            }
            let old = sequence
            sequence = .idle
            context.transition("tap", old, "recognized", sequence)
        case .idle, .failed:
            break
        }
    }

    /// The sequence ended without a tap.
    mutating func sequenceEnded<S: GestureSink>(time: Timestamp, in context: RecognizerContext, into sink: inout S) {
        fail(time: time, "last-lift", in: context, into: &sink)
        let old = sequence
        sequence = .idle
        context.transition("tap", old, "sequence-ended", sequence)
    }

    /// Cancelled sequence (palm, SYN_DROPPED, device gone): no tap from it. A held-back
    /// exclusive tap from an earlier sequence did happen, so it is reported now, with the
    /// count it had reached, rather than silently lost.
    mutating func cancel<S: GestureSink>(time: Timestamp, in context: RecognizerContext, into sink: inout S) {
        flushHeldBack(time: time, in: context, into: &sink)
        let old = sequence
        sequence = .failed
        chain = .empty
        context.transition("tap", old, "cancel", sequence)
    }

    /// Reports any exclusive tap still held back (in the chain, or as the predecessor of
    /// the current sequence) at `time`, and forgets it.
    mutating func flushHeldBack<S: GestureSink>(time: Timestamp, in context: RecognizerContext, into sink: inout S) {
        if case .pending(let record, _) = chain {
            report(record, time: time, in: context, into: &sink)
            chain = .empty
            context.transition("tap-chain", "pending", "flush", "empty")
        }
        if case .possible(var candidate) = sequence, candidate.predecessorHeldBack, let record = candidate.predecessor {
            report(record, time: time, in: context, into: &sink)
            candidate.predecessor = nil
            candidate.predecessorHeldBack = false
            sequence = .possible(candidate)
            context.transition("tap-chain", "held-back", "flush", "empty")
        }
    }

    /// Forget the sequence and the chain.
    mutating func reset() {
        sequence = .idle
        chain = .empty
    }

    /// The exclusive multi-tap interval closed: report the held-back tap at the deadline.
    mutating func deadlineReached<S: GestureSink>(time: Timestamp, in context: RecognizerContext, into sink: inout S) {
        switch chain {
        case .pending(let record, let deadline) where deadline <= time:
            report(record, time: deadline, in: context, into: &sink)
            chain = .empty
            context.transition("tap-chain", "pending", "interval-closed", "empty")
        case .pending, .empty, .last:
            break
        }
    }

    private func report<S: GestureSink>(_ record: TapRecord, time: Timestamp, in context: RecognizerContext, into sink: inout S) {
        let id = context.newID(.tap, &sink)
        context.emit(.tap(count: record.count), .ended, id: id, time: time, fingers: record.fingers, location: record.location, into: &sink)
    }

    static let maximumFingers = 5
}
