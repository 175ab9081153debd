import GestureProtocol

/// Why wake-swallow forwards the touches that land while the display reads off.
public enum WakeSignalFailure: Sendable, Hashable {
    /// The wake key could not be made (no `/dev/uinput`, no permission).
    case noWakeKey
    /// The display still read off this long after a swallowed wake touch: the compositor
    /// does not count the wake key as activity, or nothing brings the display back on it.
    case displayStayedOff(TimeSpan)
}
