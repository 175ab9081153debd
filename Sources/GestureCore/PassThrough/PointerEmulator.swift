import GestureProtocol

/// A mouse button of the pointer a pass-through device's touches drive.
public enum PointerButton: String, Sendable, Hashable, CaseIterable {
    case left
    case right
    case middle
}

/// One thing the pointer does, in order: what `PointerClone.Frames` writes on the pointer
/// device.
public enum PointerStep: Sendable, Hashable {
    /// The pointer goes to this point of the screen (normalised, 0…1, origin top-left).
    case move(Point)
    case press(PointerButton)
    case release(PointerButton)
    /// The wheel turns, in 1/120 of a detent (`REL_WHEEL_HI_RES`, `REL_HWHEEL_HI_RES`):
    /// `vertical` positive scrolls up (the page's content moves down), `horizontal` positive
    /// scrolls right.
    case wheel(vertical: Int32, horizontal: Int32)
}

/// Turns the touches of a pass-through device that reach the app as a pointer
/// (`app-input = "pointer"`) into mouse input, with the tap's slop and the long press's
/// duration the engine's own recognizers use (`AppTouchPolicy.PointerRules`), so a tap
/// gestured reports is a left click for the app and a long press a right click:
///
/// - a **tap** (one finger lifted within the slop before the duration) is one left click at
///   its touch-down point, given at the lift;
/// - a **long press** (one finger still within the slop when the duration has passed) is
///   one right click at its touch-down point, given at that moment while the finger is
///   still down (`nextDeadline`), and **no left button at all**; the rest of the touch
///   does nothing;
/// - a **one-finger drag** (it moved beyond the slop first) is, with `pointer-drag =
///   "button"`, the left button pressed at the touch-down point, the pointer moved with the
///   finger, and the button released at the lift; with `"scroll"`, a wheel scroll;
/// - a **two-finger drag** (a second finger down before the first moved beyond the slop or
///   rested) is a wheel scroll once the fingers' centroid moved beyond the slop, in hi-res
///   units, the content following the fingers; a two-finger touch that does not move does
///   nothing. Fingers beyond the first two, and fingers that land during a drag, a scroll
///   or after a click, do nothing: after a gesture ends every finger must lift before the
///   next begins.
///
/// Pure and deterministic, on frame times (a virtual clock in tests), in the
/// action-returning style of `PassThroughFilter`: each input returns the steps to write.
/// `cancel()` returns the releases of whatever is pressed, so nothing stays pressed after
/// a reload, a lost device or a stop.
public struct PointerEmulator {
    /// Hi-res wheel units in one detent (the kernel's convention for `REL_*_HI_RES`).
    public static let wheelUnitsPerDetent: Int32 = 120
    /// Hi-res wheel units per millimetre the fingers travel: a detent per 15 mm, about the
    /// distance a detent scrolls a page on a 96 dpi screen, so the content keeps up with the
    /// fingers.
    public static let wheelUnitsPerMillimetre = 8.0

    /// The touch a gesture began with, at its touch-down.
    struct Start: Sendable, Hashable {
        var id: UInt64
        var location: Point
        var surface: SurfacePoint
        var since: Timestamp
        var rules: AppTouchPolicy.PointerRules
    }

    /// A wheel scroll: the touches it follows (their centroid), where it was last, and the
    /// fraction of a hi-res unit not sent yet.
    struct Scroll: Sendable, Hashable {
        var ids: [UInt64]
        var last: SurfacePoint
        var vertical = 0.0
        var horizontal = 0.0
    }

    enum State: Sendable, Hashable {
        /// No touch down.
        case idle
        /// One finger down, within the slop, before the duration: a tap, a long press or a drag.
        case pending(Start)
        /// Two fingers down that have not moved beyond the slop together yet.
        case twoFingers(ids: [UInt64], from: SurfacePoint, slop: Length)
        /// The left button is down, the pointer following this touch.
        case dragging(id: UInt64, at: Point)
        /// The wheel follows the touches.
        case scrolling(Scroll)
        /// The gesture is over (a click given, a drag or scroll ended, cancelled): nothing
        /// until every finger has lifted.
        case finishing
        /// `finish()` was called: nothing ever again.
        case finished
    }

    private(set) var state = State.idle
    /// Receives one line per state transition; nil: no strings are built.
    public var log: ((String) -> Void)?

    public init() {}

    /// When the long press of the touch down now is due (`advance(to:)`), nil when none waits.
    public var nextDeadline: Timestamp? {
        guard case .pending(let start) = state else { return nil }
        return start.since + start.rules.limits.duration
    }

    /// The buttons down now.
    public var pressedButtons: Set<PointerButton> {
        guard case .dragging = state else { return [] }
        return [.left]
    }

    /// The touches after one frame (`PassThroughFilter.pointerTouches`) at `time`: a touch
    /// missing from the list lifted. A long press due at or before `time` is given first.
    public mutating func frame(_ touches: [PointerTouch], at time: Timestamp) -> [PointerStep] {
        var steps = advance(to: time)
        switch state {
        case .finished:
            break
        case .finishing:
            if touches.isEmpty { transition(to: .idle, "every finger lifted") }
        case .idle:
            let sorted = touches.sorted { $0.id < $1.id }
            guard let first = sorted.first else { break }
            if sorted.count >= 2 {
                beginTwoFingers(first: first, second: sorted[1], touches)
            } else {
                transition(
                    to: .pending(Start(id: first.id, location: first.location, surface: first.surface, since: time, rules: first.rules)),
                    "touch-down")
            }
        case .pending(let start):
            guard let now = touches.first(where: { $0.id == start.id }) else {
                steps += Self.click(.left, at: start.location)
                end(touches, "lifted within the slop before the long-press duration: a tap, left click")
                break
            }
            if let second = touches.filter({ $0.id != start.id }).min(by: { $0.id < $1.id }) {
                beginTwoFingers(first: now, second: second, touches, slop: start.rules.limits.slop)
            } else if (now.surface - start.surface).length > start.rules.limits.slop {
                switch start.rules.drag {
                case .button:
                    steps += [.move(start.location), .press(.left), .move(now.location)]
                    transition(to: .dragging(id: start.id, at: now.location), "moved beyond the slop: left-button drag")
                case .scroll:
                    var scroll = Scroll(ids: [start.id], last: start.surface)
                    if let wheel = Self.turn(&scroll, to: now.surface) { steps.append(wheel) }
                    transition(to: .scrolling(scroll), "moved beyond the slop: scroll")
                }
            }
        case .twoFingers(let ids, let from, let slop):
            guard let centroid = Self.centroid(of: ids, in: touches) else {
                end(touches, "a finger lifted before the fingers moved")
                break
            }
            if (centroid - from).length > slop {
                var scroll = Scroll(ids: ids, last: from)
                if let wheel = Self.turn(&scroll, to: centroid) { steps.append(wheel) }
                transition(to: .scrolling(scroll), "two fingers moved beyond the slop: scroll")
            }
        case .dragging(let id, let at):
            guard let now = touches.first(where: { $0.id == id }) else {
                steps.append(.release(.left))
                end(touches, "lifted: the drag's left button released")
                break
            }
            if now.location != at {
                steps.append(.move(now.location))
                state = .dragging(id: id, at: now.location)
            }
        case .scrolling(var scroll):
            guard let centroid = Self.centroid(of: scroll.ids, in: touches) else {
                end(touches, "a finger lifted: the scroll ended")
                break
            }
            if let wheel = Self.turn(&scroll, to: centroid) { steps.append(wheel) }
            state = .scrolling(scroll)
        }
        return steps
    }

    /// The clock reached `time` with no frame: a touch still within the slop when its
    /// long-press duration has passed is a long press, one right click at its touch-down
    /// point (and the rest of the touch does nothing).
    public mutating func advance(to time: Timestamp) -> [PointerStep] {
        guard case .pending(let start) = state, time >= start.since + start.rules.limits.duration else { return [] }
        transition(to: .finishing, "rested past the long-press duration: a long press, right click")
        return Self.click(.right, at: start.location)
    }

    /// The touches stop reaching the pointer (a reload, a resynchronisation): the releases
    /// of whatever is pressed; the touches down now do nothing more, until every finger has
    /// lifted.
    public mutating func cancel() -> [PointerStep] {
        let releases = pressedButtons.sorted { $0.rawValue < $1.rawValue }.map(PointerStep.release)
        switch state {
        case .idle, .finishing, .finished:
            break
        case .pending, .twoFingers, .dragging, .scrolling:
            transition(to: .finishing, "cancelled")
        }
        return releases
    }

    /// The pointer is about to be destroyed (a stop, the device gone, pass-through off): the
    /// releases of whatever is pressed, and nothing more afterwards.
    public mutating func finish() -> [PointerStep] {
        let releases = cancel()
        if state != .finished { transition(to: .finished, "finish") }
        return releases
    }

    // MARK: - Helpers

    private mutating func beginTwoFingers(first: PointerTouch, second: PointerTouch, _ touches: [PointerTouch], slop: Length? = nil) {
        let ids = [first.id, second.id]
        let centroid = Self.centroid(of: ids, in: touches) ?? first.surface
        transition(to: .twoFingers(ids: ids, from: centroid, slop: slop ?? first.rules.limits.slop), "a second finger")
    }

    /// The gesture is over: idle when no finger is down, else wait for every one to lift.
    private mutating func end(_ touches: [PointerTouch], _ reason: String) {
        transition(to: touches.isEmpty ? .idle : .finishing, reason)
    }

    private static func click(_ button: PointerButton, at point: Point) -> [PointerStep] {
        [.move(point), .press(button), .release(button)]
    }

    /// The centroid of the touches `ids` name; nil when one of them has lifted.
    private static func centroid(of ids: [UInt64], in touches: [PointerTouch]) -> SurfacePoint? {
        var sum = SurfacePoint.zero
        for id in ids {
            guard let touch = touches.first(where: { $0.id == id }) else { return nil }
            sum = sum + touch.surface
        }
        return sum * (1 / Double(ids.count))
    }

    /// Moves `scroll` to `point`: the wheel step for the travel (content follows the
    /// fingers: down the screen scrolls up), nil when less than a hi-res unit is due.
    private static func turn(_ scroll: inout Scroll, to point: SurfacePoint) -> PointerStep? {
        let travel = point - scroll.last
        scroll.last = point
        scroll.vertical += travel.y.millimetres * wheelUnitsPerMillimetre
        scroll.horizontal -= travel.x.millimetres * wheelUnitsPerMillimetre
        let limit = Double(Int32.max / 2)
        let vertical = Int32(max(-limit, min(limit, scroll.vertical.rounded(.towardZero))))
        let horizontal = Int32(max(-limit, min(limit, scroll.horizontal.rounded(.towardZero))))
        scroll.vertical -= Double(vertical)
        scroll.horizontal -= Double(horizontal)
        guard vertical != 0 || horizontal != 0 else { return nil }
        return .wheel(vertical: vertical, horizontal: horizontal)
    }

    private mutating func transition(to new: State, _ reason: String) {
        log?("pointer: \(state) → \(reason) → \(new)")
        state = new
    }
}
