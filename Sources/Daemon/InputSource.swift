import EvdevInput
import GestureCore
import GestureProtocol
import SystemPackage

/// Where a device's gestures go: the broadcaster, tagged with the device's name. The
/// engine emits into it as a `GestureSink`; the contact tracker's frames go to
/// `touches(_:)` for clients that asked for raw touches.
public struct DaemonSink: GestureSink {
    let server: SocketServer
    let ids: GestureIDAllocator
    /// The device name events carry.
    public let device: String
    /// Told of every frame with contacts (`[daemon] idle-timeout`); nil: nobody watches.
    var activity: ActivityWatch? = nil

    public mutating func nextGestureID() -> UInt64 {
        ids.next()
    }

    public mutating func emit(_ event: GestureEvent) {
        server.broadcast(event, device: device)
    }

    /// Whether any client wants raw touches (skip building frames' touch events otherwise).
    public var wantsTouches: Bool { server.wantsTouches }

    /// A frame with contacts arrived (the daemon is not idle).
    func touched(_ frame: TouchFrame) {
        activity?.touched(frame, device: device)
    }

    /// Sends one frame's contacts as `touch` events.
    public mutating func touches(_ frame: TouchFrame) {
        server.broadcastTouches(frame, device: device)
    }

    /// A completed input frame: its touch-downs are counted, and its contacts sent as
    /// `touch` events to the clients that asked for them.
    mutating func frameCompleted(_ frame: TouchFrame) {
        server.state.metrics.count(frame, device: device)
        if wantsTouches { touches(frame) }
    }

    /// Touch hygiene dropped or ended a touch: counted for `metrics` and logged (rate-limited).
    public mutating func touchFiltered(_ filtered: TouchFiltered) {
        server.touchFiltered(filtered, device: device)
    }

    /// The device lost events (`SYN_DROPPED`) `count` times and resynchronised.
    public mutating func resynchronised(_ count: Int) {
        server.state.metrics.countSynDropped(count, device: device)
    }
}

/// Gesture ids unique across every device for the daemon's life.
public final class GestureIDAllocator {
    private var last: UInt64 = 0

    public init() {}

    public func next() -> UInt64 {
        last += 1
        return last
    }
}

/// What a source tells the daemon after being serviced.
public enum InputStatus: Equatable {
    case active
    /// The source is done (device unplugged, recording over): the daemon removes it.
    case finished(reason: String)
}

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
}

extension InputSource {
    /// Sources without settings keep running unchanged.
    public func reconfigure(_ configuration: Configuration, now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        .active
    }
}

extension DevicePipeline {
    /// Feeds one event; a completed frame with contacts counts as activity (before its
    /// gestures); every completed frame is counted for `metrics` and goes out as raw
    /// touches (after its gestures) when a client asked.
    mutating func feed(_ event: InputEvent, touchesInto sink: inout DaemonSink) {
        let completed = feed(event, into: &sink) { frame, sink in
            if !frame.contacts.isEmpty { sink.touched(frame) }
        }
        if completed {
            sink.frameCompleted(frame)
        }
    }

    /// Fires the timers due at or before `time`; a frame touch hygiene makes at a deadline
    /// (a held touch beginning, a stuck one cancelled) counts and goes out as raw touches too.
    mutating func advance(to time: Timestamp, touchesInto sink: inout DaemonSink) {
        advance(to: time, into: &sink) { frame, sink in
            if !frame.contacts.isEmpty { sink.touched(frame) }
            sink.frameCompleted(frame)
        }
    }

    /// `pipeline.nextDeadline`, read in place. A source keeps its pipeline in a stored
    /// property of a class; read from there through the getter, the whole pipeline is copied
    /// first (every reference in it retained, then released: some 1 500 instructions per
    /// dispatch), because the getter might reach the object another way. An
    /// `inout` argument is exclusive, so the getter borrows it where it lies.
    static func nextDeadline(of pipeline: inout DevicePipeline) -> Timestamp? {
        pipeline.nextDeadline
    }

    /// A pipeline for `description` with the settings `configuration` resolves for it;
    /// `previous`: the one it replaces after a reload (touches down keep their hygiene decisions).
    init(_ description: DeviceDescription, settings: ResolvedDeviceSettings, replacing previous: DevicePipeline? = nil) {
        self.init(
            device: description, geometry: settings.geometry, configuration: settings.engine, touch: settings.touch, replacing: previous)
    }
}
