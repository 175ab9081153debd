import EvdevInput
import GestureCore
import GestureProtocol
import SystemPackage

/// Where a device's gestures go: the broadcaster, tagged with the device's name. The
/// engine emits into it as a `GestureSink`; every frame the pipeline makes (input, touch
/// hygiene's deadline frames and the one that cancels a device's contacts alike) marks
/// activity before its gestures (`frameMade`) and is counted and sent as `touch` lines after
/// them (`frameClassified`).
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

    /// Sends one frame's contacts as `touch` events.
    public mutating func touches(_ frame: TouchFrame) {
        server.broadcastTouches(frame, device: device)
    }

    /// A frame with contacts arrived (the daemon is not idle): told before its gestures.
    public mutating func frameMade(_ frame: TouchFrame) {
        if !frame.contacts.isEmpty { activity?.touched(frame, device: device) }
    }

    /// A classified frame: its touch-downs are counted, and its contacts sent as `touch`
    /// events (after its gestures) to the clients that asked for them.
    public mutating func frameClassified(_ frame: TouchFrame) {
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
