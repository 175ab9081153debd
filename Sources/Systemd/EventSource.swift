import GestureCore
import Glibc
import SystemCalls
import SystemPackage

/// Base of every event source: belongs to one loop until cancelled or released. Once the
/// loop is gone (or the source cancelled), changing the source does nothing.
public class EventSource {
    weak var loop: EventLoop?
    let token: UInt64

    init(loop: EventLoop, token: UInt64) {
        self.loop = loop
        self.token = token
    }

    /// Stops watching now (also happens when the object is released): a source cancelled or
    /// released while pending is not dispatched.
    public func cancel() {}
}
