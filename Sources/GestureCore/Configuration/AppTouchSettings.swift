/// What the app gets of the touches on a pass-through device: the `app-fingers` and
/// `app-long-press` keys of one `[[region]]` or one `[[device]]` (nil: not set there).
/// A touch takes each key from the innermost region containing its touch-down point that
/// sets it, else from its device's entry, else the default (no limit, long presses pass).
public struct AppTouchSettings: Sendable, Hashable {
    /// At most this many fingers of a touch sequence reach the app (`app-fingers`).
    public var fingers: Int?
    /// false: a touch that rests is never shown to the app as a long press (`app-long-press`).
    public var longPress: Bool?

    public init(fingers: Int? = nil, longPress: Bool? = nil) {
        self.fingers = fingers
        self.longPress = longPress
    }

    /// Each key of `self`, else the key of `fallback`.
    public func over(_ fallback: AppTouchSettings) -> AppTouchSettings {
        AppTouchSettings(fingers: fingers ?? fallback.fingers, longPress: longPress ?? fallback.longPress)
    }
}
