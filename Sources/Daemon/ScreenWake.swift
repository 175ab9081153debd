import EvdevInput
import GestureCore
import GestureProtocol
import Logging
import SystemCalls
import Systemd

/// What wake-swallow needs from outside the pass-through filter, shared by every
/// pass-through device: the display's power, read from sysfs at a touch-down
/// (`DisplayPowerSysfs`), with the moment it came back on; and the wake key (`WakeKey`)
/// that tells the compositor of each swallowed wake touch, so whatever blanked the screen
/// (swayidle's `resume`, the compositor's idle notifier) brings it back as it would have
/// for the touch.
///
/// sysfs does not notify DPMS changes, so after a touch-down finds the display off, the
/// display is read again every `pollInterval` until it is on (at most for `pollLimit`):
/// that gives the guard time its start within `pollInterval`. Otherwise nothing is read
/// between touches.
final class ScreenWake {
    static let pollInterval = TimeSpan.milliseconds(50)
    static let pollLimit = TimeSpan.milliseconds(10_000)

    private unowned let loop: EventLoop
    private let logger: Logger
    private let sysfsRoot: String
    private var wakeKey: WakeKey?
    private var keyFailed = false
    private var pollTimer: LoopTimer?
    /// The display as last read, when it was last seen off, when it was first seen on after
    /// that, and until when it is polled.
    private var last = DisplayPower.unknown
    private var onSince: Timestamp?
    private var pollUntil: Timestamp?
    /// What the last reading read (connectors, backlights), logged when it changes.
    private var sources: String?

    private var now: Timestamp { loop.now }

    init(loop: EventLoop, logger: Logger, sysfsRoot: String = DisplayPowerSysfs.root) {
        self.loop = loop
        self.logger = logger
        self.sysfsRoot = sysfsRoot
    }

    /// A device with wake-swallow is passed through: the wake key is made now, so the
    /// compositor has added it by the time a wake touch needs it. Returns whether there is
    /// one; a key that cannot be made is logged once, and touches on a dark display are then
    /// forwarded (`WakeSignal`).
    @discardableResult
    func prepare() -> Bool {
        if wakeKey == nil && !keyFailed {
            do {
                let made = try WakeKey()
                wakeKey = made
                logger.info("wake key created (tells the compositor of swallowed wake touches)", metadata: ["node": "\(made.devnode)"])
            } catch {
                keyFailed = true
                logger.error(
                    "cannot create the wake key: nothing could make the compositor wake for a swallowed touch, so touches on a dark display are forwarded (the app gets them)",
                    metadata: ["error": "\(error)"])
            }
        }
        preparePoll()
        return wakeKey != nil
    }

    private func preparePoll() {
        if pollTimer == nil {
            do {
                pollTimer = try loop.timer { [unowned self] _ in poll() }
            } catch {
                logger.warning(
                    "no timer for reading the display again; the wake guard starts at the next touch", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The display's power now, for a touch-down.
    func displayPower() -> DisplayPower {
        read(at: now)
        if case .on = last { return .on(since: onSince) }
        return last
    }

    /// A wake touch was swallowed: the compositor is told of activity.
    func wakeTouched() {
        do {
            try wakeKey?.pulse()
        } catch {
            logger.warning("cannot press the wake key", metadata: ["error": "\(error)"])
        }
    }

    private func read(at time: Timestamp) {
        let reading = DisplayPowerSysfs.read(root: sysfsRoot)
        if reading.sources != sources {
            sources = reading.sources
            logger.notice(
                reading.sources == "none"
                    ? "wake-swallow finds no DRM connector and no backlight in sysfs: only the daemon's idle timeout arms it"
                    : "wake-swallow reads the display's power", metadata: ["from": "\(sysfsRoot): \(reading.sources)"])
        }
        let power = reading.power
        switch (last, power) {
        case (.off, .on):
            onSince = time
            logger.info("display on again")
        case (_, .off):
            if last != .off { logger.info("display off") }
            pollUntil = time + Self.pollLimit
            schedulePoll(after: time)
        case (.on, .on), (.unknown, .on), (_, .unknown):
            break
        }
        last = power == .unknown ? .unknown : (power == .off ? .off : .on(since: nil))
    }

    private func poll() {
        let time = now
        guard last == .off, let until = pollUntil, time < until else { return }
        read(at: time)
    }

    private func schedulePoll(after time: Timestamp) {
        do {
            try pollTimer?.schedule(at: time + Self.pollInterval)
        } catch {
            logger.warning("cannot arm the display poll", metadata: ["error": "\(error)"])
        }
    }
}
