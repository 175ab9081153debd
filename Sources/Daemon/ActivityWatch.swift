import GestureCore
import GestureProtocol
import Logging
import SystemCalls
import Systemd

/// `[daemon] idle-timeout` in the daemon: feeds every touch frame to the pure
/// `ActivityMonitor`, keeps a loop timer on its deadline, and hands its changes to the
/// daemon (`changed`), which sends them to every client as `activity` lines. Its monitor's
/// `lastTouch` is the daemon's one `lastTouch` (`DaemonState.lastTouch`).
final class ActivityWatch {
    private var monitor: ActivityMonitor
    private let changed: (ActivityMessage) -> Void
    private let logger: Logger
    private var timer: LoopTimer?
    private unowned let loop: EventLoop

    private var now: Timestamp { loop.now }

    /// When the daemon last read a frame with a finger down, on its clock; nil before the first.
    var lastTouch: Timestamp? { monitor.lastTouch }

    /// Whether the daemon is idle now (the `idle` line went out, no touch since).
    var isIdle: Bool { monitor.isIdle }

    /// `catchUp` is called when the idle deadline has come, before going idle: it must feed
    /// every source the input due by now (a loop running late must not call a daemon idle
    /// whose touches are waiting to be read). `changed` gets each `idle` and `active`.
    init(
        loop: EventLoop, timeout: TimeSpan, logger: Logger, catchUp: @escaping (Timestamp) -> Void,
        changed: @escaping (ActivityMessage) -> Void
    ) throws(SystemError) {
        monitor = ActivityMonitor(timeout: timeout, now: loop.now)
        self.loop = loop
        self.changed = changed
        self.logger = logger
        timer = try loop.timer { [unowned self] now in
            if let deadline = monitor.deadline, deadline <= now {
                catchUp(now)
            }
            announce(monitor.advance(to: now))
            arm(monitor.deadline)
        }
        rearm()
    }

    /// A frame of `device` with contacts, read now. Activity is on the daemon's clock, not
    /// the frame's: a live device's input time is within microseconds of it, while
    /// `run --replay` at another speed stamps frames with the recording's spacing.
    func touched(_ frame: TouchFrame, device: String) {
        let down = frame.contacts.count { $0.phase == .began || $0.phase == .moved }
        announce(monitor.touched(device: device, at: now, down: down))
    }

    func deviceRemoved(_ device: String, now: Timestamp) {
        monitor.deviceRemoved(device, at: now)
        rearm()
    }

    func reconfigure(timeout: TimeSpan, now: Timestamp) {
        announce(monitor.reconfigure(timeout: timeout, now: now))
    }

    func cancel() {
        timer?.cancel()
        timer = nil
    }

    private func announce(_ change: ActivityMonitor.Change?) {
        switch change {
        case .idle(let time)?:
            logger.info(
                "idle: no touch for the idle timeout",
                metadata: ["lastTouch": "\(monitor.lastTouch.map { "\($0.microseconds)" } ?? "none")"])
            changed(ActivityMessage(phase: .idle, seq: 0, time: time))
        case .active(let time)?:
            logger.info("active: touched after idle")
            changed(ActivityMessage(phase: .active, seq: 0, time: time))
        case nil:
            break
        }
        rearm()
    }

    /// Arms the timer for the monitor's deadline when that is earlier than the one armed.
    /// A later deadline (every touch moves it) waits for the armed timer, which looks again:
    /// a stream of touches costs no timer change per frame.
    private func rearm() {
        guard let timer, let deadline = monitor.deadline else { return }
        if let armed = timer.deadline, armed <= deadline { return }
        arm(monitor.deadline)
    }

    private func arm(_ deadline: Timestamp?) {
        do {
            try timer?.schedule(at: deadline)
        } catch {
            logger.error("cannot arm the idle timer; idle-timeout is not watched until the next touch", metadata: ["error": "\(error)"])
        }
    }
}
