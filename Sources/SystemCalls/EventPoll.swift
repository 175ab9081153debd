import CSystemCalls
import Glibc
import SystemPackage

/// An epoll instance (`epoll_create1(EPOLL_CLOEXEC)`): the descriptors an event loop waits on,
/// each registered with the events it wants and a 64-bit token the kernel hands back with its
/// readiness. Level-triggered (no `EPOLLET`): a descriptor stays ready until it is drained.
/// Closed when released. Not thread-safe: one loop owns it.
public final class EventPoll {
    /// The epoll descriptor.
    public let descriptor: FileDescriptor
    private var ready: [epoll_event]

    /// A new epoll instance; `capacity` bounds how many ready descriptors one `wait` reports
    /// (the rest are reported by the next).
    public init(capacity: Int = 64) throws(SystemError) {
        let fd = try SystemCall.posixBlocking("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        descriptor = FileDescriptor(rawValue: fd)
        ready = Array(repeating: epoll_event(), count: max(1, capacity))
    }

    deinit {
        try? descriptor.close()
    }

    /// Starts watching `fd` for `events` (`EPOLLIN`, `EPOLLOUT`, …); `token` comes back with
    /// its readiness. Fails with `EEXIST` when `fd` is watched already.
    public func add(_ fd: FileDescriptor, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, fd, events: events, token: token, call: "epoll_ctl(ADD)")
    }

    /// Changes the events (and token) of a watched `fd`.
    public func modify(_ fd: FileDescriptor, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, fd, events: events, token: token, call: "epoll_ctl(MOD)")
    }

    /// Stops watching `fd`. A descriptor closed already (`EBADF`) or no longer watched
    /// (`ENOENT`: closing it removed it) is not an error: there is nothing left to remove.
    public func remove(_ fd: FileDescriptor) {
        var unused = epoll_event()
        _ = try? SystemCall.posixBlocking("epoll_ctl(DEL)") { epoll_ctl(descriptor.rawValue, EPOLL_CTL_DEL, fd.rawValue, &unused) }
    }

    private func control(_ operation: Int32, _ fd: FileDescriptor, events: UInt32, token: UInt64, call: String) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        try SystemCall.posixBlocking(call) { epoll_ctl(descriptor.rawValue, operation, fd.rawValue, &event) }
    }

    /// Waits up to `timeoutMilliseconds` (-1: no limit, 0: not at all) for watched descriptors
    /// to become ready and calls `body` with each one's token and ready events, in the order
    /// the kernel reports them. Returns how many were ready (0 on timeout).
    ///
    /// A signal interrupting the wait (`EINTR`) restarts it with the same timeout, as
    /// `SystemCall` does for every call: a signal this process handles is forwarded to a pipe
    /// the loop watches (`SignalForwarding`), so the restarted wait returns at once.
    public func wait(timeoutMilliseconds: Int32, _ body: (_ token: UInt64, _ events: UInt32) -> Void) throws(SystemError) -> Int {
        // `ready` is never empty (`init`), so its base address is not nil: glibc 2.41's
        // <sys/epoll.h> declares the buffer non-null, older ones optional; both take this.
        let capacity = Int32(ready.count)
        let count = try SystemCall.posixBlocking("epoll_wait") {
            ready.withUnsafeMutableBufferPointer { epoll_wait(descriptor.rawValue, $0.baseAddress!, capacity, timeoutMilliseconds) }
        }
        for index in 0..<Int(count) {
            body(ready[index].data.u64, ready[index].events)
        }
        return Int(count)
    }

    /// The `epoll_wait` timeout that waits until `deadline` (µs on the monotonic clock) seen
    /// from `now`: milliseconds rounded up, so a wait never ends before the deadline (a wait
    /// ended early would find nothing due and wait again for the rest, a spin of zero
    /// timeouts for the last sub-millisecond); 0 for a deadline that has come, -1 for none,
    /// at most `Int32.max` ms.
    public static func timeout(until deadline: UInt64?, now: UInt64) -> Int32 {
        guard let deadline else { return -1 }
        guard deadline > now else { return 0 }
        let milliseconds = (deadline - now) / 1_000 + ((deadline - now) % 1_000 == 0 ? 0 : 1)
        return Int32(clamping: milliseconds)
    }
}
