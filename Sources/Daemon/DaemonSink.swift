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
