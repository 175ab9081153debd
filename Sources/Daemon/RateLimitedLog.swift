import GestureCore
import Logging

/// Lets through at most `burst` records of one kind per `interval`; the first record let
/// through after some were held back says how many (`suppressed=N`). Guards every log line
/// a client can trigger (a refused connection, a bad request, an accept failing for want of
/// descriptors): 700 000 connections must not become 700 000 lines. Pure: time comes in.
struct LogRateLimiter {
    /// Microseconds.
    let interval: UInt64
    let burst: Int
    private var windows: [String: Window] = [:]

    private struct Window {
        var start: UInt64
        var admitted: Int
        var suppressed: Int
    }

    init(interval: UInt64 = 10_000_000, burst: Int = 10) {
        self.interval = interval
        self.burst = burst
    }

    /// Whether a record of `kind` may be written at `now`: nil when not, else how many of
    /// its kind were held back since the last one written.
    mutating func admit(_ kind: String, now: UInt64) -> Int? {
        var window = windows[kind] ?? Window(start: now, admitted: 0, suppressed: 0)
        if now.saturatingSubtract(window.start) >= interval {
            window.start = now
            window.admitted = 0
        }
        guard window.admitted < burst else {
            window.suppressed += 1
            windows[kind] = window
            return nil
        }
        let suppressed = window.suppressed
        window.admitted += 1
        window.suppressed = 0
        windows[kind] = window
        return suppressed
    }
}

/// A logger whose records pass through a `LogRateLimiter`, keyed by their message.
struct RateLimitedLogger {
    var logger: Logger
    var limiter = LogRateLimiter()
    /// The loop's clock.
    let now: () -> UInt64

    mutating func log(_ level: Logger.Level, _ message: String, _ metadata: @autoclosure () -> Logger.Metadata = [:]) {
        guard level >= logger.logLevel, let suppressed = limiter.admit(message, now: now()) else { return }
        var metadata = metadata()
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        logger.log(level: level, "\(message)", metadata: metadata)
    }
}
