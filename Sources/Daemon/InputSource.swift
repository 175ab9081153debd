import GestureCore

/// Where a device's gestures go: the broadcaster, tagged with the device's name. The
/// engine emits into it as a `GestureSink`; the contact tracker's frames go to
/// `touches(_:)` for clients that asked for raw touches.
public struct DaemonSink: GestureSink {
    let server: SocketServer
    let ids: GestureIDAllocator
    /// The device name events carry.
    public let device: String

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
/// Live devices (EvdevInput + ContactTracker + GestureEngine) and `run --replay` both
/// implement it. All times are CLOCK_MONOTONIC microseconds (live evdev devices should
/// be switched to CLOCK_MONOTONIC with EVIOCSCLOCKID so engine deadlines need no mapping).
public protocol InputSource: AnyObject {
    var device: DeviceInfo { get }
    /// The descriptor to watch for readability, nil for sources driven by their deadline only.
    var fileDescriptor: Int32? { get }
    /// The descriptor is readable: read everything available (non-blocking) and emit.
    func readAvailable(now: UInt64, into sink: inout DaemonSink) -> InputStatus
    /// When `deadlineReached` must next be called (e.g. the engine's next timer), nil: none.
    var nextDeadline: UInt64? { get }
    /// `nextDeadline` passed (the loop's time is `now`).
    func deadlineReached(now: UInt64, into sink: inout DaemonSink) -> InputStatus
    /// The source is being removed (shutdown or `finished`): cancel gestures in flight.
    func close(now: UInt64, into sink: inout DaemonSink)
}

/// Turns one device's input events into gestures: the coordinator's ContactTracker +
/// GestureEngine behind one interface, used by `ReplaySource`. Times are in the input's
/// own clock (the recording's timestamps).
public protocol TouchPipeline: AnyObject {
    func feed(_ event: InputEvent, into sink: inout DaemonSink)
    /// The engine's next deadline, in the input's clock.
    var nextDeadline: UInt64? { get }
    func expire(at time: UInt64, into sink: inout DaemonSink)
    /// Cancels every gesture in flight (end of a loop pass, shutdown).
    func cancelAll(at time: UInt64, into sink: inout DaemonSink)
}

/// Plays a recording in real time (scaled by `speed`) through a pipeline, as a virtual
/// device: `gestured run --replay`. Events keep the recording's timestamps, so the
/// gestures equal `gestured replay`'s apart from `seq`; with `loops`, each pass starts
/// again where the last ended (timestamps shifted forward by the recording's length).
public final class ReplaySource: InputSource {
    public let device: DeviceInfo
    public var fileDescriptor: Int32? { nil }
    private let events: [InputEvent]
    private let pipeline: TouchPipeline
    private let speed: Double
    private let loops: Bool
    private var index = 0
    /// Added to the recording's timestamps for the current pass.
    private var passOffset: UInt64 = 0
    /// Monotonic time corresponding to the recording's first timestamp.
    private let start: UInt64

    public init(device: DeviceInfo, events: [InputEvent], pipeline: TouchPipeline, speed: Double = 1, loops: Bool = false, now: UInt64) {
        precondition(speed > 0, "speed must be positive")
        self.device = device
        self.events = events
        self.pipeline = pipeline
        self.speed = speed
        self.loops = loops
        start = now
    }

    private var firstTime: UInt64 { events.first?.time ?? 0 }
    private var length: UInt64 { (events.last?.time ?? 0) - firstTime + 1 }

    /// The monotonic time at which input time `t` plays.
    private func monotonic(_ t: UInt64) -> UInt64 {
        start + UInt64(Double(t - firstTime) / speed)
    }

    /// The input time playing at monotonic `now`.
    private func inputTime(_ now: UInt64) -> UInt64 {
        firstTime + UInt64(Double(now &- start) * speed)
    }

    public var nextDeadline: UInt64? {
        var next: UInt64? = nil
        if index < events.count { next = monotonic(events[index].time + passOffset) }
        if let engine = pipeline.nextDeadline {
            let t = monotonic(max(engine, firstTime))
            next = min(next ?? t, t)
        }
        return next
    }

    public func readAvailable(now: UInt64, into sink: inout DaemonSink) -> InputStatus {
        .active
    }

    public func deadlineReached(now: UInt64, into sink: inout DaemonSink) -> InputStatus {
        let playing = inputTime(now)
        while true {
            let nextEvent = index < events.count ? events[index].time + passOffset : nil
            let nextTimer = pipeline.nextDeadline
            // Timers and events in time order, as `gestured replay` runs them.
            if let timer = nextTimer, timer <= playing, timer < (nextEvent ?? .max) {
                pipeline.expire(at: timer, into: &sink)
                continue
            }
            if let eventTime = nextEvent, eventTime <= playing {
                var event = events[index]
                event.time = eventTime
                pipeline.feed(event, into: &sink)
                index += 1
                continue
            }
            break
        }
        if index == events.count && pipeline.nextDeadline == nil {
            guard loops, !events.isEmpty else { return .finished(reason: "end of recording") }
            passOffset += length
            index = 0
        }
        return .active
    }

    public func close(now: UInt64, into sink: inout DaemonSink) {
        pipeline.cancelAll(at: inputTime(now), into: &sink)
    }
}
