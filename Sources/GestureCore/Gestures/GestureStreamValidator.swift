/// Checks a stream of gesture events against the protocol's guarantees, for tests, the
/// replay corpus run and the end-to-end driver:
/// - `id`s: a new id starts with `began` (continuous) or is a single `ended` (discrete);
///   an id is never reused after its gesture finished;
/// - phases: `began` → `changed`* → exactly one `ended` or `cancelled`;
/// - discrete gestures (tap, swipe) are exactly one `ended`; one id, one kind, one region;
/// - time never goes backwards within one gesture;
/// - at the end (`finish()`), no gesture is left open.
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

    private var open: [UInt64: GestureEvent] = [:]
    private var finished: Set<UInt64> = []
    public private(set) var violations: [Violation] = []

    public init() {}

    /// Checks one event.
    public mutating func check(_ event: GestureEvent) {
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

    /// Declares the stream complete: every gesture still open is a violation.
    public mutating func finish() {
        for event in open.values.sorted(by: { $0.id < $1.id }) {
            violations.append(Violation(message: "gesture never ended", event: event))
        }
        open.removeAll()
    }

    /// Validates a whole stream.
    public static func violations(in events: [GestureEvent]) -> [Violation] {
        var validator = GestureStreamValidator()
        for event in events { validator.check(event) }
        validator.finish()
        return validator.violations
    }
}
