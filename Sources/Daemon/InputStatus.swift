import EvdevInput
import GestureCore
import GestureProtocol
import SystemPackage

/// What a source tells the daemon after being serviced.
public enum InputStatus: Equatable {
    case active
    /// The source is done (device unplugged, recording over): the daemon removes it.
    case finished(reason: String)
}
