/// The delays between attempts to reach something again (the daemon; the session's
/// compositor for `SessionTypist.keyboardHolder`): `first`, doubling up to `longest`, back
/// to `first` once an attempt held (no hammering what is down, no long wait after a quick
/// restart).
public struct ReconnectBackoff: Sendable {
    /// The daemon's: 100 ms doubling up to 5 s.
    public static let first: Duration = .milliseconds(100)
    public static let longest: Duration = .seconds(5)

    private let first: Duration
    private let longest: Duration
    private var next: Duration

    public init(first: Duration = ReconnectBackoff.first, longest: Duration = ReconnectBackoff.longest) {
        self.first = first
        self.longest = longest
        next = first
    }

    /// The attempt failed (or what it reached was lost): how long to wait before the next.
    public mutating func failed() -> Duration {
        let delay = next
        next = min(next * 2, longest)
        return delay
    }

    /// The attempt held (the daemon answered): the next failure waits `first` again.
    public mutating func connected() {
        next = first
    }
}
