import EvdevInput
import GestureCore
import GestureProtocol
import SystemPackage

/// One input device as the daemon sees it: a descriptor to watch and a deadline to keep.
/// Live evdev devices (`EvdevSource`) and `run --replay` (`ReplaySource`) implement it. All
/// times are CLOCK_MONOTONIC microseconds (live devices are switched to CLOCK_MONOTONIC with
/// EVIOCSCLOCKID so engine deadlines need no mapping).
public protocol InputSource: AnyObject {
    var device: DeviceInfo { get }
    /// The descriptor to watch for readability, nil for sources driven by their deadline only.
    var fileDescriptor: FileDescriptor? { get }
    /// The descriptor is readable: read everything available (non-blocking) and emit.
    func readAvailable(now: Timestamp, into sink: inout DaemonSink) -> InputStatus
    /// When `deadlineReached` must next be called (e.g. the engine's next timer), nil: none.
    var nextDeadline: Timestamp? { get }
    /// `nextDeadline` passed (the loop's time is `now`).
    func deadlineReached(now: Timestamp, into sink: inout DaemonSink) -> InputStatus
    /// A new configuration is in force: cancel gestures in flight and rebuild with the new
    /// settings, or finish when the device is no longer to be used.
    func reconfigure(_ configuration: Configuration, now: Timestamp, into sink: inout DaemonSink) -> InputStatus
    /// The source is being removed (shutdown or `finished`): cancel gestures in flight.
    func close(now: Timestamp, into sink: inout DaemonSink)
    /// Set when this is a touchscreen no `[[device]]` entry matches while others pass
    /// through (`UnmatchedTouchscreen.check`); the daemon's `STATUS=` line names it.
    var unmatchedTouchscreen: UnmatchedTouchscreen? { get }
    /// The ghost series touch hygiene learned on the device (`status`'s `ghosts`).
    var ghosts: [GhostSeries] { get }
}

extension InputSource {
    /// Sources without touch hygiene learn no ghost.
    public var ghosts: [GhostSeries] { [] }

    /// Sources without settings keep running unchanged.
    public func reconfigure(_ configuration: Configuration, now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        .active
    }

    /// Sources that are not live devices are never an unmatched touchscreen.
    public var unmatchedTouchscreen: UnmatchedTouchscreen? { nil }
}
