import GestureCore
import GestureProtocol
import Testing

/// What a pointer did, step by step, with the rules a mouse keeps checked as it goes: a
/// button is never pressed while down, nor released while up.
struct PointerLog {
    var steps: [PointerStep] = []
    var pressed: Set<PointerButton> = []
    var presses: [PointerButton: Int] = [:]
    var releases: [PointerButton: Int] = [:]
    /// Where each press happened (the last move before it).
    var pressPoints: [(PointerButton, Point?)] = []
    var position: Point?
    var wheelVertical = 0
    var wheelHorizontal = 0

    mutating func take(_ new: [PointerStep]) {
        for step in new {
            steps.append(step)
            switch step {
            case .move(let point):
                position = point
            case .press(let button):
                #expect(!pressed.contains(button), "\(button) pressed while down")
                pressed.insert(button)
                presses[button, default: 0] += 1
                pressPoints.append((button, position))
            case .release(let button):
                #expect(pressed.contains(button), "\(button) released while up")
                pressed.remove(button)
                releases[button, default: 0] += 1
            case .wheel(let vertical, let horizontal):
                wheelVertical += Int(vertical)
                wheelHorizontal += Int(horizontal)
            }
        }
    }

    func count(_ button: PointerButton) -> Int { presses[button] ?? 0 }
    var wheelSteps: Int { steps.filter { if case .wheel = $0 { true } else { false } }.count }
}

enum PointerFixtures {
    /// The default tap slop (3 mm) and long-press duration (500 ms).
    static let rules = AppTouchPolicy.PointerRules(limits: AppTouchPolicy.RestLimits(GestureSettings()))
    static let scrollRules = AppTouchPolicy.PointerRules(limits: AppTouchPolicy.RestLimits(GestureSettings()), drag: .scroll)

    /// A touch at (x, y) mm on a 100 × 50 mm screen.
    static func touch(_ id: UInt64, _ x: Double, _ y: Double, rules: AppTouchPolicy.PointerRules = rules) -> PointerTouch {
        PointerTouch(id: id, location: Point(x: x / 100, y: y / 50), surface: SurfacePoint(millimetresX: x, y: y), rules: rules)
    }

    static func ms(_ value: UInt64) -> Timestamp { Timestamp(microseconds: 1_000_000 + value * 1000) }
}
