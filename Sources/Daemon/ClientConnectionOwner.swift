import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// What a `ClientConnection` needs of the server that owns it.
protocol ClientConnectionOwner: AnyObject {
    /// Every client's queued and unsent bytes against `queue-memory`.
    var budget: DeliveryBudget { get }
    /// The daemon's counters and metrics.
    var state: DaemonState { get }
    /// The log lines clients can cause, rate-limited.
    var log: RateLimitedLogger { get }
    /// `client` has output to write before the loop next waits.
    func scheduleFlush(_ client: ClientConnection)
    /// `client` closed; it is forgotten.
    func closed(_ client: ClientConnection)
}
