import GestureProtocol

/// The display's power as the daemon read it for a touch-down, for wake-swallow: a touch
/// that lands while the display is off, or within the wake guard after it came back on,
/// wakes the screen and is kept from the app.
public enum DisplayPower: Sendable, Hashable {
    /// Nothing says: no display state is readable, or none was read yet.
    case unknown
    case off
    /// On; `since`: when the daemon first saw it on after seeing it off (its clock,
    /// `CLOCK_MONOTONIC`, the clock of input event times), nil when it was never seen off.
    case on(since: Timestamp?)
}
