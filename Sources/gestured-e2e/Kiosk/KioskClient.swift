import GestureTestSupport
import SystemCalls

/// The app a compositor shows in the kiosk tier (wev, Chromium), as the driver reads it:
/// the shell command the compositor runs (its output to a FIFO the driver reads), when it
/// is ready for touches, and what it printed lately.
protocol KioskClient: AnyObject {
    /// The shell command the compositor runs for it (as the kiosk user).
    var shellCommand: String { get }
    /// Whether touches written now reach it (touches before that are lost).
    var isReady: Bool { get }
    /// How long it may take to become ready (a liveness bound).
    var readyTimeout: Double { get }
    /// Its last lines and events in words, for failure messages.
    var recent: String { get }
    /// Waits up to `milliseconds` for its output (reading `subscriber` meanwhile, so the
    /// daemon never queues for it), then takes everything available.
    func pump(milliseconds: Int32, alongside subscriber: Subscriber?)
}

extension KioskClient {
    /// Reads until `condition` holds; fails after `timeout` seconds (a liveness bound: the
    /// verdict is what arrived, never how fast).
    func wait(_ what: String, timeout: Double = 15, alongside subscriber: Subscriber? = nil, until condition: () -> Bool)
        throws(CaseFailure)
    {
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while !condition() {
            let now = monotonicMicroseconds()
            guard now < deadline else { throw CaseFailure("the client did not get \(what) within \(Int(timeout)) s; \(recent)") }
            pump(milliseconds: Int32(min(200, (deadline - now) / 1000 + 1)), alongside: subscriber)
        }
    }

    /// Reads whatever arrives for `milliseconds`.
    func settle(milliseconds: Double, alongside subscriber: Subscriber? = nil) {
        let deadline = monotonicMicroseconds() + UInt64(milliseconds * 1000)
        while true {
            let now = monotonicMicroseconds()
            guard now < deadline else { return }
            pump(milliseconds: Int32(max(1, (deadline - now) / 1000)), alongside: subscriber)
        }
    }
}
