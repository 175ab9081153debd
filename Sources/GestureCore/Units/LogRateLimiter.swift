import GestureProtocol

/// Lets through at most `burst` records of one kind per `interval`; the first record let
/// through after some were held back says how many (`suppressed=N`). Guards every log line
/// a client can trigger (a refused connection, a bad request, an accept failing for want of
/// descriptors), and every line `gesturectl actions` writes per trigger: 700 000 connections
/// must not become 700 000 lines. Pure: time comes in.
public struct LogRateLimiter: Sendable {
    public let interval: TimeSpan
    public let burst: Int
    private var windows: [String: Window] = [:]

    private struct Window {
        var start: Timestamp
        var admitted: Int
        var suppressed: Int
    }

    public init(interval: TimeSpan = .seconds(10), burst: Int = 10) {
        self.interval = interval
        self.burst = burst
    }

    /// Whether a record of `kind` may be written at `now`: nil when not, else how many of
    /// its kind were held back since the last one written.
    public mutating func admit(_ kind: String, now: Timestamp) -> Int? {
        var window = windows[kind] ?? Window(start: now, admitted: 0, suppressed: 0)
        if now - window.start >= interval {
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
