import GestureCore
import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage

/// A re-armable one-shot CLOCK_MONOTONIC timer, its deadlines `Timestamp`s as the engine's
/// are (not Foundation's `Timer`): it fires at the first iteration whose `now` is at or past its deadline, never
/// before, and its handler gets the deadline it was armed for.
public final class LoopTimer: EventSource {
    let handler: (Timestamp) -> Void
    /// The armed deadline, nil when disarmed.
    public private(set) var deadline: Timestamp?

    init(loop: EventLoop, token: UInt64, handler: @escaping (Timestamp) -> Void) {
        self.handler = handler
        super.init(loop: loop, token: token)
    }

    deinit {
        cancel()
    }

    public override func cancel() {
        loop?.setArmed(self, false)
        loop = nil
    }

    /// Fires once at `deadline` (CLOCK_MONOTONIC); nil disarms. Re-arming replaces the
    /// old deadline; a deadline already past fires at the next iteration. Does nothing once
    /// cancelled. Never fails (it throws for the API's sake: sd-event's could).
    public func schedule(at deadline: Timestamp?) throws(SystemError) {
        guard let loop, deadline != self.deadline else { return }
        self.deadline = deadline
        loop.setArmed(self, deadline != nil)
    }

    func fire(_ deadline: Timestamp) {
        self.deadline = nil
        handler(deadline)
    }
}
