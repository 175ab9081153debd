import EvdevInput
import GestureCore
import GestureProtocol
import SystemPackage

/// Gesture ids unique across every device for the daemon's life.
public final class GestureIDAllocator {
    private var last: UInt64 = 0

    public init() {}

    public func next() -> UInt64 {
        last += 1
        return last
    }
}
