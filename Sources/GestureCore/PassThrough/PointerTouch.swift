import GestureProtocol

/// One touch down that reaches the app as a pointer (`app-input = "pointer"`), as the
/// pass-through filter lists it after a frame (`PassThroughFilter.pointerTouches`): the
/// input of `PointerEmulator`.
public struct PointerTouch: Sendable, Hashable {
    /// Unique for the touch's life on its device (the filter's order of decisions).
    public var id: UInt64
    /// Where it is on the screen, normalised (0…1, origin top-left, rotation and calibration
    /// applied: the transform the regions use), where the pointer is put.
    public var location: Point
    /// Where it is on the surface in millimetres, in screen orientation: what the slop and
    /// the wheel are measured in.
    public var surface: SurfacePoint
    /// The tap slop, long-press duration and drag mode of its touch-down point.
    public var rules: AppTouchPolicy.PointerRules

    public init(id: UInt64, location: Point, surface: SurfacePoint, rules: AppTouchPolicy.PointerRules) {
        self.id = id
        self.location = location
        self.surface = surface
        self.rules = rules
    }
}
