import GestureCore
import Logging

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
