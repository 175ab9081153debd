/// What the app gets of the touches on a pass-through device: the `app-fingers`,
/// `app-long-press`, `app-input` and `pointer-drag` keys of one `[[region]]` or one
/// `[[device]]` (nil: not set there). A touch takes each key from the innermost region
/// containing its touch-down point that sets it, else from its device's entry, else the
/// default (no limit, long presses pass, touches, button drags).
public struct AppTouchSettings: Sendable, Hashable {
    /// At most this many fingers of a touch sequence reach the app (`app-fingers`).
    public var fingers: Int?
    /// false: a touch that rests is never shown to the app as a long press (`app-long-press`).
    public var longPress: Bool?
    /// Whether the touch reaches the app as a touch or as a pointer (`app-input`).
    public var input: AppInput?
    /// What a one-finger drag is for the app when the touch reaches it as a pointer (`pointer-drag`).
    public var pointerDrag: PointerDrag?

    public init(fingers: Int? = nil, longPress: Bool? = nil, input: AppInput? = nil, pointerDrag: PointerDrag? = nil) {
        self.fingers = fingers
        self.longPress = longPress
        self.input = input
        self.pointerDrag = pointerDrag
    }

    /// Each key of `self`, else the key of `fallback`.
    public func over(_ fallback: AppTouchSettings) -> AppTouchSettings {
        AppTouchSettings(
            fingers: fingers ?? fallback.fingers, longPress: longPress ?? fallback.longPress, input: input ?? fallback.input,
            pointerDrag: pointerDrag ?? fallback.pointerDrag)
    }
}
