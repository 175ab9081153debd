import CSystemd
import Glibc
import SystemCalls
import SystemPackage

/// A watched file descriptor: an sd-event IO source, removed when cancelled or released.
public final class IOWatch: EventSource {
    let fd: FileDescriptor
    let handler: (IOEvents) -> Void
    var events: IOEvents
    var isEnabled = true
    var isRegistered = false
    /// The `sd_event_source`, nil once cancelled.
    var source: OpaquePointer?

    init(loop: EventLoop, token: UInt64, fd: FileDescriptor, events: IOEvents, handler: @escaping (IOEvents) -> Void) {
        self.fd = fd
        self.events = events
        self.handler = handler
        super.init(loop: loop, token: token)
    }

    deinit {
        cancel()
    }

    public override func cancel() {
        loop?.forget(self)
        loop = nil
        // The loop may be gone first: the source (which keeps the `sd_event` alive) goes anyway.
        if let source { sd_event_source_disable_unref(source) }
        source = nil
    }

    /// Changes the events watched (e.g. add `.writable` only while output is queued); a
    /// pending dispatch of the old events is dropped (a descriptor still ready is reported
    /// again). Fails when the kernel refuses the change (`epoll_ctl`: `ENOMEM`, `ENOSPC`): the
    /// descriptor is then no longer watched as asked.
    public func setEvents(_ events: IOEvents) throws(SystemError) {
        guard let loop, events != self.events else { return }
        self.events = events
        try loop.modify(self)
    }

    /// Stops (or resumes) watching the descriptor without giving up the watch: stopped, it is
    /// not dispatched. Resuming fails as `setEvents` does.
    public func setEnabled(_ enabled: Bool) throws(SystemError) {
        guard let loop, enabled != isEnabled else { return }
        isEnabled = enabled
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
