import GestureCore
import GestureProtocol

/// Checks a stream of gesture events against the protocol's guarantees, for tests, the
/// replay corpus run and the end-to-end driver:
/// - `id`s: a new id starts with `began` (continuous) or is a single `ended` (discrete);
///   an id is never reused after its gesture finished;
/// - phases: `began` → `changed`* → exactly one `ended` or `cancelled`;
/// - discrete gestures (tap, swipe) are exactly one `ended`; one id, one kind, one region;
/// - time never goes backwards within one gesture;
/// - at the end (`finish()`), no gesture is left open;
/// - press brackets everything (checked per touch, `GestureEvent.touch`, and region): a
///   region has one press open at a time; a press `ended` comes after every gesture of its
///   touch and region (none is still open); a press `cancelled` comes after the gestures it
///   carried are cancelled (none of them is cancelled at the same moment after it);
/// - with `requirePress` (every touch reports a press: the configuration enables press at
///   the top level and in every region with `fall-through = false`), a continuous gesture
///   begins only for a touch that pressed (after SYN_DROPPED, a finger still down never
///   yields a drag without a press around it).
public struct GestureStreamValidator {
    /// A broken guarantee, with the offending event.
    public struct Violation: Error, CustomStringConvertible, Hashable {
        public var message: String
        public var event: GestureEvent?

        public var description: String {
            guard let event else { return message }
            return "\(message): \(event.kind.rawValue) \(event.phase.rawValue) id \(event.id) at \(event.time)"
        }
    }

    /// Where a press belongs: its touch and its region.
    private struct PressKey: Hashable {
        var touch: UInt32
        var region: String?
    }

    private var open: [UInt64: GestureEvent] = [:]
    private var finished: Set<UInt64> = []
    /// The press open in each region.
    private var openPresses: [String?: GestureEvent] = [:]
    /// Touches whose press began (contact ids are never reused by a tracker).
    private var pressedTouches: Set<UInt32> = []
    /// Presses cancelled, with the moment, for the "cancelled after its press" check.
    private var cancelledPresses: [PressKey: Timestamp] = [:]
    private let requirePress: Bool
    public private(set) var violations: [Violation] = []

    /// - Parameter requirePress: check that every continuous gesture's touch pressed first
    ///   (only when the configuration gives every touch a press).
    public init(requirePress: Bool = true) {
        self.requirePress = requirePress
    }

    /// Checks one event.
    public mutating func check(_ event: GestureEvent) {
        checkBrackets(event)
        if finished.contains(event.id) {
            violations.append(Violation(message: "event after its gesture finished", event: event))
            return
        }
        switch event.kind {
        case .tap, .swipe:
            if event.phase != .ended {
                violations.append(Violation(message: "discrete gesture with a phase other than ended", event: event))
            }
            if open[event.id] != nil {
                violations.append(Violation(message: "discrete gesture reuses an open id", event: event))
            }
            finished.insert(event.id)
        case .press, .longPress, .drag, .pinch, .rotate:
            checkContinuous(event)
        }
    }

    private mutating func checkContinuous(_ event: GestureEvent) {
        let previous = open[event.id]
        if let previous {
            if previous.kind != event.kind {
                violations.append(Violation(message: "one id shared by two gesture kinds", event: event))
            }
            if previous.region != event.region {
                violations.append(Violation(message: "one id shared by two regions", event: event))
            }
            if event.time < previous.time {
                violations.append(Violation(message: "time went backwards within a gesture", event: event))
            }
        }
        switch (event.phase, previous) {
        case (.began, nil):
            open[event.id] = event
        case (.began, .some):
            violations.append(Violation(message: "began twice", event: event))
        case (.changed, .some):
            open[event.id] = event
        case (.changed, nil):
            violations.append(Violation(message: "changed before began", event: event))
        case (.ended, .some), (.cancelled, .some):
            open[event.id] = nil
            finished.insert(event.id)
        case (.ended, nil), (.cancelled, nil):
            violations.append(Violation(message: "\(event.phase.rawValue) without began", event: event))
        }
    }

    private mutating func checkBrackets(_ event: GestureEvent) {
        let key = PressKey(touch: event.touch, region: event.region)
        switch (event.kind, event.phase) {
        case (.press, .began):
            if openPresses[event.region] != nil {
                violations.append(Violation(message: "a second press in a region whose press is open", event: event))
            }
            openPresses[event.region] = event
            pressedTouches.insert(event.touch)
            cancelledPresses[key] = nil
        case (.press, .ended):
            openPresses[event.region] = nil
            let carried = open.values.filter { $0.kind != .press && $0.touch == event.touch && $0.region == event.region }
            if !carried.isEmpty {
                violations.append(Violation(message: "press ended before the \(carried[0].kind.rawValue) of its touch", event: event))
            }
        case (.press, .cancelled):
            openPresses[event.region] = nil
            // Only a cancelled touch brackets: a press released while its touch goes on
            // (it left the region) is outlived by the gestures that go on.
            if event.pressCancellation != .released { cancelledPresses[key] = event.time }
        case (.press, .changed):
            break
        case (.longPress, .began), (.drag, .began), (.pinch, .began), (.rotate, .began):
            if requirePress && !pressedTouches.contains(event.touch) {
                violations.append(Violation(message: "a gesture of a touch that never pressed", event: event))
            }
        case (.longPress, .cancelled), (.drag, .cancelled), (.pinch, .cancelled), (.rotate, .cancelled):
            if let time = cancelledPresses[key], time == event.time, let began = open[event.id], began.touch == event.touch {
                violations.append(Violation(message: "cancelled after its press (the press must come last)", event: event))
            }
        case (.longPress, _), (.drag, _), (.pinch, _), (.rotate, _), (.tap, _), (.swipe, _):
            break
        }
    }

    /// Declares the stream complete: every gesture still open is a violation.
    public mutating func finish() {
        for event in open.values.sorted(by: { $0.id < $1.id }) {
            violations.append(Violation(message: "gesture never ended", event: event))
        }
        open.removeAll()
    }

    /// Validates a whole stream.
    public static func violations(in events: [GestureEvent], requirePress: Bool = true) -> [Violation] {
        var validator = GestureStreamValidator(requirePress: requirePress)
        for event in events { validator.check(event) }
        validator.finish()
        return validator.violations
    }
}
