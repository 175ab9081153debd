import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import Systemd

/// What a component hears from the daemon (`Daemon.observe`).
public enum DaemonChange {
    /// A source was removed (unplugged, finished, or excluded by a reload).
    case sourceRemoved(InputSource)
    /// The daemon went idle (no touch for `[daemon] idle-timeout`), after the `activity`
    /// line went out: pass-through devices with `wake-swallow` reserve their next touch.
    case wentIdle
    /// A reload succeeded and every source was reconfigured (e.g. look for devices the
    /// new configuration admits).
    case configurationChanged(Configuration)
    /// A client connected or went.
    case clientsChanged
    /// A client's `subscribe` request took effect.
    case clientSubscribed
}
