import GestureCore
import Glibc
import SystemCalls
import SystemPackage

/// A task run once per `schedule()`, after the current dispatch and before the loop next waits.
public final class DeferredTask: EventSource {
    let handler: () -> Void
    var isScheduled = false

    init(loop: EventLoop, token: UInt64, handler: @escaping () -> Void) {
        self.handler = handler
        super.init(loop: loop, token: token)
    }

    deinit {
        cancel()
    }

    public override func cancel() {
        isScheduled = false
        loop = nil
    }

    /// Runs the task after the current dispatch, before the loop next waits (once, however
    /// often it is scheduled); scheduled from the task itself, after the next dispatch. Does
    /// nothing once cancelled. Never fails (it throws for the API's sake: sd-event's could).
    public func schedule() throws(SystemError) {
        guard let loop, !isScheduled else { return }
        isScheduled = true
        loop.schedule(self)
    }
}
