import GestureCore
import GestureProtocol
import Logging

/// A logger whose records pass through a `LogRateLimiter`, keyed by their message; one
/// instance is shared by every part that logs what clients cause (one limit per kind).
final class RateLimitedLogger {
    let logger: Logger
    private var limiter: LogRateLimiter
    /// The loop's clock.
    let now: () -> Timestamp

    init(logger: Logger, limiter: LogRateLimiter = LogRateLimiter(), now: @escaping () -> Timestamp) {
        self.logger = logger
        self.limiter = limiter
        self.now = now
    }

    func log(_ level: Logger.Level, _ message: String, _ metadata: @autoclosure () -> Logger.Metadata = [:]) {
        guard level >= logger.logLevel, let suppressed = limiter.admit(message, now: now()) else { return }
        var metadata = metadata()
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        logger.log(level: level, "\(message)", metadata: metadata)
    }
}
