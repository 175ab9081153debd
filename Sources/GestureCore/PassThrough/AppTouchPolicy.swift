import GestureProtocol

/// What the app gets of a pass-through device's touches, by touch-down point: the
/// `app-fingers` and `app-long-press` keys of the regions around the point (innermost
/// first) over the device's, and the limits by which `app-long-press = false` tells a
/// resting touch from a tap or a drag: the tap's `slop` and the long press's
/// `minimum-duration` of the innermost region containing the point (else the device's
/// `[gestures]`), so the app is kept from exactly the touches the engine may call a long press.
/// A touch whose `app-input` is `"pointer"` reaches the app as a pointer instead
/// (`PointerEmulator`), by the same limits: its tap and long press are the engine's.
public struct AppTouchPolicy: Sendable, Hashable {
    /// How far a touch may move and how long it may stay down and still be a tap.
    public struct RestLimits: Sendable, Hashable {
        /// The tap's `slop`.
        public var slop: Length
        /// The long press's `minimum-duration`.
        public var duration: TimeSpan

        public init(slop: Length, duration: TimeSpan) {
            self.slop = slop
            self.duration = duration
        }

        /// The limits of one region's (or the device's) gesture settings.
        public init(_ settings: GestureSettings) {
            let thresholds = Thresholds(settings)
            self.init(slop: thresholds.tapSlop, duration: thresholds.longPressDuration)
        }
    }

    /// How a touch that reaches the app as a pointer is read (`app-input = "pointer"`).
    public struct PointerRules: Sendable, Hashable {
        /// The tap's slop and the long press's duration: a tap is a left click, a long press
        /// a right click, exactly where the engine reports a tap and a long press.
        public var limits: RestLimits
        /// What a one-finger drag is (`pointer-drag`).
        public var drag: PointerDrag

        public init(limits: RestLimits, drag: PointerDrag = .button) {
            self.limits = limits
            self.drag = drag
        }
    }

    /// A region: its rectangle (normalised screen space), its own app keys and its limits.
    public struct Area: Sendable, Hashable {
        public var rect: Rect
        public var app: AppTouchSettings
        public var limits: RestLimits

        public init(rect: Rect, app: AppTouchSettings = AppTouchSettings(), limits: RestLimits = RestLimits(GestureSettings())) {
            self.rect = rect
            self.app = app
            self.limits = limits
        }
    }

    /// What one touch gets, decided at its touch-down.
    struct Admission: Sendable, Hashable {
        /// `app-fingers`; nil: no limit.
        var fingers: Int?
        /// With `app-long-press = false`, the limits the touch is held by; nil: it is not held.
        var hold: RestLimits?
        /// With `app-input = "pointer"`, how the touch is read as a pointer; nil: it reaches
        /// the app as a touch (and `fingers` and `hold` apply).
        var pointer: PointerRules?
    }

    /// Innermost (smallest) first.
    public private(set) var areas: [Area]
    /// The device's keys, for what no region around the touch-down point sets.
    public var device: AppTouchSettings
    /// The limits outside every region.
    public var limits: RestLimits

    public init(areas: [Area] = [], device: AppTouchSettings = AppTouchSettings(), limits: RestLimits = RestLimits(GestureSettings())) {
        self.areas = areas.enumerated().sorted { ($0.element.rect.area, $0.offset) < ($1.element.rect.area, $1.offset) }.map(\.element)
        self.device = device
        self.limits = limits
    }

    /// The regions of an engine configuration, over the device's keys.
    public init(engine: EngineConfiguration, device: AppTouchSettings) {
        self.init(
            areas: engine.regions.map { Area(rect: $0.rect, app: $0.app, limits: RestLimits($0.settings)) }, device: device,
            limits: RestLimits(engine.defaults))
    }

    /// What a touch starting at `point` gets.
    func admission(at point: Point) -> Admission {
        var app = AppTouchSettings()
        var innermost: RestLimits?
        for area in areas where area.rect.contains(point) {
            app = app.over(area.app)
            if innermost == nil { innermost = area.limits }
        }
        app = app.over(device)
        let limits = innermost ?? self.limits
        return Admission(
            fingers: app.fingers, hold: app.longPress == false ? limits : nil,
            pointer: app.input == .pointer ? PointerRules(limits: limits, drag: app.pointerDrag ?? .button) : nil)
    }

    /// Whether any touch can reach the app as a pointer: the device or a region sets
    /// `app-input = "pointer"` (the device then needs its pointer beside the clone).
    public var usesPointer: Bool {
        device.input == .pointer || areas.contains { $0.app.input == .pointer }
    }
}
