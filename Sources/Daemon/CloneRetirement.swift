import EvdevInput
import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Systemd

/// Keeps finished pass-through clones for `linger` before destroying them. The kernel
/// discards a vanished device's unread events, so a clone destroyed in the same instant its
/// touches were lifted could leave a reader (the compositor) that had not read the lifts yet
/// with a finger down. Released by a loop timer, or all at once by `waitAndRelease` after
/// the loop stopped.
final class CloneRetirement {
    static let linger = TimeSpan(microseconds: 250_000)
    private var retired: [(clone: UinputDevice, until: Timestamp)] = []
    private var timer: LoopTimer?
    private unowned let loop: EventLoop

    init(loop: EventLoop) throws(SystemError) {
        self.loop = loop
        timer = try loop.timer { [unowned self] now in release(dueBy: now) }
    }

    func retire(_ clone: UinputDevice) {
        let until = loop.now + Self.linger
        retired.append((clone, until))
        if timer?.deadline == nil { try? timer?.schedule(at: until) }
    }

    /// A timer that cannot be armed leaves the clones for `waitAndRelease` at the stop.
    private func release(dueBy now: Timestamp) {
        retired.removeAll { $0.until <= now }
        try? timer?.schedule(at: retired.first?.until)
    }

    /// After the loop stopped: waits out the last clone's linger, then destroys them all.
    func waitAndRelease() {
        guard let last = retired.last?.until else { return }
        let now = Timestamp(microseconds: monotonicMicroseconds())
        if last > now { sleepMicroseconds((last - now).microseconds) }
        retired.removeAll()
    }
}
