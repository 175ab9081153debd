import GestureProtocol

/// Whether wake-swallow can make the compositor wake, for a touch that lands while the
/// display reads off: a swallowed touch never reaches the compositor, so the daemon must
/// tell it of the activity itself (the wake key), and a kiosk must never stay dark because
/// it could not. Where it cannot, the touch is forwarded: the compositor sees a real touch
/// and wakes (the app gets it too), and the daemon says so in its log.
public enum WakeSignal: Sendable, Hashable {
    /// The daemon can tell the compositor (the wake key exists) and nothing says it fails.
    case ready
    /// A touch was swallowed while the display read off, at this time (the frame clock):
    /// the display is expected on within `PassThroughFilter.wakeConfirmation`.
    case sent(at: Timestamp)
    /// The daemon cannot make the compositor wake: touches while the display reads off are
    /// forwarded.
    case unavailable(WakeSignalFailure)
}
