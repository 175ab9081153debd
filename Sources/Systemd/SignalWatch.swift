import GestureCore
import Glibc
import SystemCalls
import SystemPackage

/// A signal delivered through the loop; released, it is no longer dispatched (the
/// signal stays caught).
public final class SignalWatch {
    let signal: Int32
    let handler: (Int32) -> Void

    init(signal: Int32, handler: @escaping (Int32) -> Void) {
        self.signal = signal
        self.handler = handler
    }
}
