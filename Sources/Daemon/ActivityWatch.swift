import EvdevInput
import GestureCore
import GestureProtocol
import Logging

/// `[daemon] idle-timeout` in the daemon: feeds every touch frame to the pure
/// `ActivityMonitor`, keeps a loop timer on its deadline, and sends its changes to every
/// client as `activity` lines.
final class ActivityWatch {
    private var monitor: ActivityMonitor
    private let server: SocketServer
    private let logger: Logger
    private var timer: Timer?
    private unowned let loop: EventLoop

    /// `catchUp` is called when the idle deadline has come, before going idle: it must feed
    /// every source the input due by now (a loop running late must not call a daemon idle
    /// whose touches are waiting to be read).
    init(loop: EventLoop, server: SocketServer, timeout: TimeSpan, logger: Logger, catchUp: @escaping (UInt64) -> Void) throws(SystemError) {
        monitor = ActivityMonitor(timeout: timeout, now: Timestamp(microseconds: loop.now))
        self.loop = loop
        self.server = server
        self.logger = logger
        timer = try loop.timer { [unowned self] now in
            if let deadline = monitor.deadline, deadline.microseconds <= now {
                catchUp(now)
            }
            announce(monitor.advance(to: Timestamp(microseconds: now)))
            timer?.schedule(at: monitor.deadline?.microseconds)
        }
        rearm()
    }

    /// A frame of `device` with contacts, read now. Activity is on the daemon's clock, not
    /// the frame's: a live device's input time is within microseconds of it, while
    /// `run --replay` at another speed stamps frames with the recording's spacing.
    func touched(_ frame: TouchFrame, device: String) {
        let down = frame.contacts.count { $0.phase == .began || $0.phase == .moved }
        announce(monitor.touched(device: device, at: Timestamp(microseconds: loop.now), down: down))
        server.lastTouch = monitor.lastTouch
    }

    func deviceRemoved(_ device: String, now: UInt64) {
        monitor.deviceRemoved(device, at: Timestamp(microseconds: now))
        rearm()
    }

    func reconfigure(timeout: TimeSpan, now: UInt64) {
        announce(monitor.reconfigure(timeout: timeout, now: Timestamp(microseconds: now)))
    }

    func cancel() {
        timer?.cancel()
        timer = nil
    }

    private func announce(_ change: ActivityMonitor.Change?) {
        switch change {
        case .idle(let time)?:
            logger.info("idle: no touch for the idle timeout", metadata: ["lastTouch": "\(monitor.lastTouch.map { "\($0.microseconds)" } ?? "none")"])
            server.activityChanged(ActivityMessage(phase: .idle, seq: 0, time: time))
        case .active(let time)?:
            logger.info("active: touched after idle")
            server.activityChanged(ActivityMessage(phase: .active, seq: 0, time: time))
        case nil:
            break
        }
        rearm()
    }

    /// Arms the timer for the monitor's deadline when that is earlier than the one armed.
    /// A later deadline (every touch moves it) waits for the armed timer, which looks again:
    /// a stream of touches costs no timer change per frame.
    private func rearm() {
        guard let timer, let deadline = monitor.deadline?.microseconds else { return }
        if let armed = timer.deadline, armed <= deadline { return }
        timer.schedule(at: deadline)
    }
}
