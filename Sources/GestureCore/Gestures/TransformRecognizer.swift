import GestureProtocol

/// pinch and rotate (one type, two instances): track two or more fingers from the moment a
/// second finger is down; `began` once the spread changed by the minimum (pinch) or the
/// fingers turned by the minimum angle (rotate), `changed` per frame, `ended` when fewer than
/// two fingers remain, `cancelled` on cancel. The value is relative to the tracking start:
/// pinch `scale` = spread now / spread then; rotate `degrees` accumulated frame by frame
/// (clockwise positive on screen, no ±180 wrap).
struct TransformRecognizer {
    /// Which of the two this instance is.
    enum Kind {
        case pinch, rotate
    }

    private enum State {
        case idle
        /// ≥ 2 fingers down, threshold not reached. `value`: scale or degrees; `progress`:
        /// the thresholded quantity (spread change in mm, or degrees).
        case tracking(value: Double, progress: Double)
        case active(id: UInt64, value: Double)
    }

    let kind: Kind
    private var state: State = .idle

    init(_ kind: Kind) { self.kind = kind }

    private var gestureKind: GestureKind {
        switch kind {
        case .pinch: .pinch
        case .rotate: .rotate
        }
    }

    private var name: StaticString {
        switch kind {
        case .pinch: "pinch"
        case .rotate: "rotate"
        }
    }

    /// Not tracking two fingers (nothing to end when fewer than two remain).
    var isIdle: Bool {
        switch state {
        case .idle: true
        case .tracking, .active: false
        }
    }

    /// One frame with at least two fingers staying down. `spreadRatio` and `spreadChangeMM`
    /// compare their spread with the previous frame; `degrees` is their mean turn. Returns
    /// true when this frame began the gesture. `mayBegin` is false once a long press began.
    mutating func moved<S: GestureSink>(
        time: Timestamp, spreadRatio: Double, spreadChangeMM: Double, degrees: Double, mayBegin: Bool, fingers: Int, location: Point,
        thresholds: Thresholds, reporter: Reporter, sink: inout S
    ) -> Bool {
        let (step, progressStep, ratio): (Double, Double, Bool) =
            switch kind {
            case .pinch: (spreadRatio, spreadChangeMM, true)
            case .rotate: (degrees, degrees, false)
            }
        switch state {
        case .idle:
            state = .tracking(value: ratio ? 1 : 0, progress: 0)
            reporter.transition(name, State.idle, "two-fingers", state)
            return moved(
                time: time, spreadRatio: spreadRatio, spreadChangeMM: spreadChangeMM, degrees: degrees, mayBegin: mayBegin,
                fingers: fingers, location: location, thresholds: thresholds, reporter: reporter, sink: &sink)
        case .tracking(let value, let progress):
            let newValue = ratio ? value * step : value + step
            let newProgress = progress + progressStep
            let threshold =
                switch kind {
                case .pinch: thresholds.pinchMinimumSpreadChangeMM
                case .rotate: thresholds.rotateMinimumDegrees
                }
            if mayBegin && abs(newProgress).reaches(threshold) {
                let id = reporter.newID(gestureKind, &sink)
                let old = state
                state = .active(id: id, value: newValue)
                reporter.emit(details(newValue), .began, id: id, time: time, fingers: fingers, location: location, into: &sink)
                reporter.transition(name, old, "threshold", state)
                return true
            }
            state = .tracking(value: newValue, progress: newProgress)
            return false
        case .active(let id, let value):
            let newValue = ratio ? value * step : value + step
            state = .active(id: id, value: newValue)
            if step != (ratio ? 1 : 0) {
                reporter.emit(details(newValue), .changed, id: id, time: time, fingers: fingers, location: location, into: &sink)
            }
            return false
        }
    }

    /// Fewer than two fingers remain (or none: the sequence ended).
    mutating func fingersBelowTwo<S: GestureSink>(time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        finish(.ended, "below-two-fingers", time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
    }

    mutating func cancel<S: GestureSink>(time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S) {
        finish(.cancelled, "cancel", time: time, fingers: fingers, location: location, reporter: reporter, sink: &sink)
    }

    mutating func reset() { state = .idle }

    private mutating func finish<S: GestureSink>(
        _ phase: GesturePhase, _ input: StaticString, time: Timestamp, fingers: Int, location: Point, reporter: Reporter, sink: inout S
    ) {
        let old = state
        switch state {
        case .idle:
            return
        case .tracking:
            break
        case .active(let id, let value):
            reporter.emit(details(value), phase, id: id, time: time, fingers: fingers, location: location, into: &sink)
        }
        state = .idle
        reporter.transition(name, old, input, state)
    }

    private func details(_ value: Double) -> GestureDetails {
        switch kind {
        case .pinch: .pinch(scale: value)
        case .rotate: .rotate(degrees: value)
        }
    }
}
