import GestureProtocol
import GestureTestSupport

@testable import GestureCore

/// Drives a GestureEngine with hand-built frames on a virtual clock (milliseconds in,
/// microseconds to the engine). The surface is 200 × 100 mm.
struct GestureHarness {
    enum Change {
        case down(UInt32, Double, Double)
        case downUnobserved(UInt32, Double, Double)
        case move(UInt32, Double, Double)
        case up(UInt32)
        case cancel(UInt32)
    }

    static let surface = PhysicalSize(width: 200, height: 100)

    var engine: GestureEngine
    var sink = CollectingSink()
    /// Contacts down, in touch-down order.
    private var down: [(id: UInt32, location: Point, unobserved: Bool)] = []
    var extraFingers = 0

    init(_ configuration: EngineConfiguration = EngineConfiguration()) {
        engine = GestureEngine(configuration: configuration, surface: Self.surface)
    }

    init(settings: GestureSettings) {
        self.init(EngineConfiguration(defaults: settings))
    }

    static func microseconds(_ ms: Double) -> Timestamp { Timestamp(microseconds: UInt64(ms * 1000)) }

    static func surfaceLocation(_ p: Point) -> SurfacePoint { SurfacePoint(millimetresX: p.x * surface.width, y: p.y * surface.height) }

    /// One frame at `ms` with these changes; every other contact down is reported as moved.
    mutating func frame(_ ms: Double, _ changes: Change...) {
        frame(at: Self.microseconds(ms), changes)
    }

    mutating func frame(at time: Timestamp, _ changes: [Change]) {
        var contacts: [Contact] = []
        var changed: [UInt32: TouchPhase] = [:]
        for change in changes {
            switch change {
            case .down(let id, let x, let y), .downUnobserved(let id, let x, let y):
                var unobserved = false
                if case .downUnobserved = change { unobserved = true }
                down.append((id, Point(x: x, y: y), unobserved))
                changed[id] = .began
            case .move(let id, let x, let y):
                if let index = down.firstIndex(where: { $0.id == id }) { down[index].location = Point(x: x, y: y) }
            case .up(let id):
                changed[id] = .ended
            case .cancel(let id):
                changed[id] = .cancelled
            }
        }
        for contact in down {
            let phase = changed[contact.id] ?? .moved
            contacts.append(
                Contact(
                    id: contact.id, phase: phase, location: contact.location, surfaceLocation: Self.surfaceLocation(contact.location),
                    startedUnobserved: contact.unobserved))
        }
        down.removeAll { changed[$0.id] == .ended || changed[$0.id] == .cancelled }
        engine.process(TouchFrame(time: time, contacts: contacts, fingerCount: down.count + extraFingers), into: &sink)
    }

    mutating func advance(to ms: Double) {
        engine.advance(to: Self.microseconds(ms), into: &sink)
    }

    mutating func cancelAll(at ms: Double) {
        engine.cancelAll(at: Self.microseconds(ms), into: &sink)
        down.removeAll()
    }

    /// A one-finger tap at (x, y) from `ms` lasting `duration` ms.
    mutating func tap(_ id: UInt32, _ x: Double, _ y: Double, at ms: Double, duration: Double = 80) {
        frame(ms, .down(id, x, y))
        frame(ms + duration, .up(id))
    }

    /// Moves contact `id` in a straight line in `steps` frames `interval` ms apart.
    mutating func glide(_ id: UInt32, from start: Point, to end: Point, startingAt ms: Double, steps: Int, interval: Double) {
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            frame(ms + Double(step) * interval, .move(id, start.x + (end.x - start.x) * f, start.y + (end.y - start.y) * f))
        }
    }

    var events: [GestureEvent] { sink.events }

    /// (kind, phase) of every event, in order.
    var summary: [String] { events.map { "\($0.kind.rawValue).\($0.phase.rawValue)" } }

    func events(_ kind: GestureKind) -> [GestureEvent] { events.filter { $0.kind == kind } }

    func taps() -> [Int] {
        events(.tap).map { event in
            if case .tap(let count) = event.details { return count }
            return -1
        }
    }
}

extension GestureEvent {
    var drag: DragValues? {
        switch details {
        case .drag(let values): values
        case .swipe(_, _, let values): values
        case .press, .tap, .longPress, .pinch, .rotate: nil
        }
    }

    /// A pinch's scale; nil for other gestures.
    var scale: Double? {
        if case .pinch(let scale, _) = details { scale } else { nil }
    }

    /// A rotate's degrees; nil for other gestures.
    var rotation: Double? {
        if case .rotate(let degrees, _) = details { degrees } else { nil }
    }

    /// A pinch's or rotate's velocity; nil for other gestures.
    var transformVelocity: Double? {
        switch details {
        case .pinch(_, let velocity), .rotate(_, let velocity): velocity
        case .press, .tap, .longPress, .drag, .swipe: nil
        }
    }
}
