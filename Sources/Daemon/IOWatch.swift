import CSystemCalls
import GestureCore
import Glibc
import SystemCalls
import SystemPackage
import Systemd

/// A watched file descriptor.
public final class IOWatch: EventSource {
    let fd: FileDescriptor
    let handler: (UInt32) -> Void
    var events: UInt32
    var isEnabled = true
    var isRegistered = false
    /// Events the last wait found and not yet dispatched (0: not pending).
    var pendingEvents: UInt32 = 0

    init(loop: EventLoop, token: UInt64, fd: FileDescriptor, events: UInt32, handler: @escaping (UInt32) -> Void) {
        self.fd = fd
        self.events = events
        self.handler = handler
        super.init(loop: loop, token: token)
    }

    deinit {
        cancel()
    }

    public override func cancel() {
        pendingEvents = 0
        loop?.forget(self)
        loop = nil
    }

    /// Changes the epoll events watched (e.g. add EPOLLOUT only while output is queued); a
    /// pending dispatch of the old events is dropped (a descriptor still ready is reported
    /// again). Fails when the kernel refuses the change (`epoll_ctl`: `ENOMEM`, `ENOSPC`): the
    /// descriptor is then no longer watched as asked.
    public func setEvents(_ events: UInt32) throws(SystemError) {
        guard let loop, events != self.events else { return }
        self.events = events
        pendingEvents = 0
        if isEnabled {
            try loop.modify(self)
        }
    }

    /// Stops (or resumes) watching the descriptor without giving up the watch; a pending
    /// dispatch is dropped. Resuming fails as `setEvents` does.
    public func setEnabled(_ enabled: Bool) throws(SystemError) {
        guard let loop, enabled != isEnabled else { return }
        isEnabled = enabled
        pendingEvents = 0
        if enabled {
            do throws(SystemError) {
                try loop.register(self)
            } catch {
                isEnabled = false
                throw error
            }
        } else {
            loop.unregister(self)
        }
    }
}
