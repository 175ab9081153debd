import GestureProtocol

/// Thresholds of the tap recognizer. Distances in millimetres, times in milliseconds.
public struct TapSettings: Sendable, Hashable {
    /// How far a finger may move and still tap (mm).
    public var slop: Double = 3.0
    /// Longest gap between one tap's lift and the next touch-down for the count to go on (ms).
    public var multiTapInterval: Double = 300
    /// Farthest the next tap may land from the previous one for the count to go on (mm).
    public var multiTapDistance: Double = 10.0
    /// Fingers that touch down within this window count as one multi-finger tap (ms).
    public var fingerWindow: Double = 150
    /// Exclusive multi-tap: report only the final count, once the multi-tap interval has
    /// closed (or `maxCount` is reached). Costs `multiTapInterval` of latency per tap.
    public var exclusive: Bool = false
    /// Highest count; with `exclusive`, reaching it reports at once. The next tap starts at 1.
    public var maxCount: Int = 3

    public init() {}
}

/// Thresholds of the long-press recognizer.
public struct LongPressSettings: Sendable, Hashable {
    /// How long the finger must stay down (ms).
    public var minimumDuration: Double = 500
    /// How far it may move before the deadline (mm).
    public var maximumDistance: Double = 3.0

    public init() {}
}

/// Thresholds of the drag recognizer and its motion estimates.
public struct DragSettings: Sendable, Hashable {
    /// Movement (of the centroid) that makes a touch a drag (mm).
    public var minimumDistance: Double = 3.0
    /// Window of recent samples the velocity is estimated over (ms).
    public var velocityWindow: Double = 100
    /// Deceleration for the predicted end, as UIScrollView's rate per millisecond
    /// (0.998 = `.normal`): predicted travel = velocity × rate / (1 − rate) / 1000 s.
    public var decelerationRate: Double = 0.998

    public init() {}
}

/// Thresholds of the swipe recognizer (a drag that ends fast and far enough).
public struct SwipeSettings: Sendable, Hashable {
    /// Least translation from start to lift (mm).
    public var minimumDistance: Double = 10.0
    /// Least speed at lift (mm/s).
    public var minimumVelocity: Double = 100.0
    /// A swipe that starts within this distance of a screen edge reports `edge` (mm).
    public var edgeMargin: Double = 5.0

    public init() {}
}

/// Thresholds of the pinch recognizer: it begins when both are reached.
public struct PinchSettings: Sendable, Hashable {
    /// Change of the scale (the fingers' spread over their spread when two were first down)
    /// that begins a pinch, as a fraction (0.05: 5 %).
    public var minimumScaleChange: Double = 0.05
    /// Change of the fingers' spread that begins a pinch (mm): keeps the jitter of fingers
    /// close together, whose scale changes by several per cent, from pinching.
    public var minimumSpreadChange: Double = 1.0

    public init() {}
}

/// Thresholds of the rotate recognizer.
public struct RotateSettings: Sendable, Hashable {
    /// Rotation of the fingers that begins a rotate (degrees).
    public var minimumAngle: Double = 5.0
    /// Distance the fingers must have turned along too (mm: the angle in radians times
    /// their distance from their centroid): keeps fingers close together from turning on
    /// jitter alone.
    public var minimumArc: Double = 1.0

    public init() {}
}

/// Every recognizer's thresholds plus which gestures are reported: the settings of one
/// region (or of the whole screen when no regions are configured).
public struct GestureSettings: Sendable, Hashable {
    /// The gestures this region recognizes and reports. A kind a region leaves out falls
    /// through to the nearest enclosing region that enables it; one that no region around a
    /// touch enables still arbitrates, unreported (a disabled drag still stops a moving touch
    /// from tapping).
    public var enabled: Set<GestureKind> = Set(GestureKind.allCases)
    public var tap = TapSettings()
    public var longPress = LongPressSettings()
    public var drag = DragSettings()
    public var swipe = SwipeSettings()
    public var pinch = PinchSettings()
    public var rotate = RotateSettings()

    public init() {}
}

/// A named rectangle of the screen with its own gestures and thresholds. Regions nest: a
/// touch is offered to every region containing its start point, innermost (smallest) first,
/// then to the top level; for each kind the innermost region that enables it recognizes it
/// (docs/gestures.md, "Regions and composition").
public struct Region: Sendable, Hashable {
    public var name: String
    /// In normalised screen space.
    public var rect: Rect
    public var settings: GestureSettings
    /// false: the region keeps every touch that starts in it; enclosing regions and the top
    /// level never see those touches (`fall-through = false`).
    public var fallThrough: Bool
    /// Kinds recognized and reported here even when another region of the touch recognizes
    /// it too: both fire (SwiftUI's `simultaneousGesture`).
    public var simultaneous: Set<GestureKind>
    /// Kinds for which this region wins over the regions inside it (SwiftUI's
    /// `highPriorityGesture`).
    public var highPriority: Set<GestureKind>
    /// On a pass-through device, a touch that starts here is the daemon's alone: it never
    /// reaches the device's uinput clone (`reserve = true`).
    public var reserve: Bool
    /// On a pass-through device, what the app gets of the touches that start here
    /// (`app-fingers`, `app-long-press`); keys not set come from an enclosing region or the device.
    public var app: AppTouchSettings

    public init(
        name: String, rect: Rect, settings: GestureSettings = GestureSettings(), fallThrough: Bool = true,
        simultaneous: Set<GestureKind> = [], highPriority: Set<GestureKind> = [], reserve: Bool = false,
        app: AppTouchSettings = AppTouchSettings()
    ) {
        self.name = name
        self.rect = rect
        self.settings = settings
        self.fallThrough = fallThrough
        self.simultaneous = simultaneous
        self.highPriority = highPriority
        self.reserve = reserve
        self.app = app
    }
}

/// What the engine for one device needs: settings for touches outside every region (and
/// for all touches when `regions` is empty) and the regions.
public struct EngineConfiguration: Sendable, Hashable {
    public var defaults: GestureSettings
    public var regions: [Region]

    public init(defaults: GestureSettings = GestureSettings(), regions: [Region] = []) {
        self.defaults = defaults
        self.regions = regions
    }
}
