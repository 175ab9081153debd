#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The current CLOCK_MONOTONIC time in microseconds (the clock of every loop deadline).
public func monotonicMicroseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
}
