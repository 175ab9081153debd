import Glibc

/// The current CLOCK_MONOTONIC time in microseconds: the clock of every event-loop deadline,
/// of the daemon's event timestamps and (once a reader asks, `EVIOCSCLOCKID`) of evdev events.
public func monotonicMicroseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
}

/// The current CLOCK_REALTIME (wall-clock) time in microseconds since 1970 (UTC); 0 should
/// the clock be set before 1970.
public func realtimeMicroseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    guard ts.tv_sec >= 0 else { return 0 }
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
}

/// Sleeps the calling thread for `microseconds` (for the few waits that have no loop to
/// wait in: a shutdown's last grace period).
public func sleepMicroseconds(_ microseconds: UInt64) {
    var request = timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1, errno == EINTR { request = remaining }
}
