/// How the touches of a pass-through device reach the app (`app-input`, per `[[device]]` and
/// per `[[region]]`, taken by a touch from its touch-down point).
public enum AppInput: String, Sendable, Hashable, CaseIterable {
    /// As touches, on the touch clone (the default).
    case touch
    /// As a mouse, on the pointer device gestured makes beside the clone: a tap is a left
    /// click, a long press a right click, a drag a left-button drag or a wheel scroll
    /// (`PointerDrag`), a two-finger drag a wheel scroll (`PointerEmulator`).
    case pointer
}
