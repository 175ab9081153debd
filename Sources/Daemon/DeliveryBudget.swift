import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// Every client's queued and unsent bytes together, against `queue-memory`
/// (docs/protocol.md "Limits and slow clients"): past it, a client holding more than its
/// share (the budget divided among the clients) counts as full.
final class DeliveryBudget {
    /// `queue-memory`.
    var limit: Int
    /// Connected clients, among whom the budget is shared.
    var clients = 0
    private(set) var bytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    func changed(by delta: Int) {
        bytes += delta
    }

    /// Each client's share.
    var share: Int { limit / max(1, clients) }

    /// Whether a client holding `held` bytes holds more than its share of an exceeded budget.
    func isOverShare(_ held: Int) -> Bool {
        bytes > limit && held >= share
    }

    /// The most a refill puts into one client's output buffer: within its share past the budget.
    var refillLimit: Int {
        bytes > limit ? max(4096, min(ClientConnection.refillBytes, share)) : ClientConnection.refillBytes
    }
}
