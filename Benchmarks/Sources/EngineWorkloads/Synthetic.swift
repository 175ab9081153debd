import Foundation
import GestureCore
import GestureProtocol

/// Long synthetic streams for the steady-state figures: a 10-slot protocol-B touchscreen
/// at 240 Hz, generated once, replayed over and over with times shifted so the clock
/// never goes back.
public struct SyntheticStream {
    public static let frameInterval: UInt64 = 1_000_000 / 240

    /// A 10-slot touchscreen, 4096 × 4096 units over 300 × 200 mm (resolution given, so no
    /// fallback is involved).
    public static let device: DeviceDescription = {
        let axis = AbsInfo(minimum: 0, maximum: 4095)
        var x = axis
        x.resolution = 14
        var y = axis
        y.resolution = 20
        return DeviceDescription(
            name: "Synthetic 10-finger touchscreen",
            properties: [INPUTPROP.direct],
            codes: [
                EV.syn: [SYN.report],
                EV.key: [BTN.touch],
                EV.abs: [ABS.x, ABS.y, ABS.mtSlot, ABS.mtTrackingID, ABS.mtPositionX, ABS.mtPositionY],
            ],
            absInfo: [
                ABS.x: x, ABS.y: y, ABS.mtPositionX: x, ABS.mtPositionY: y,
                ABS.mtSlot: AbsInfo(minimum: 0, maximum: 9),
                ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ])
    }()

    public var events: [InputEvent] = []
    public var frames = 0
    /// Time just after the last frame: the offset for the next lap.
    public var duration: UInt64 = 0
    /// Index of the first event of each frame (for chunks of whole frames).
    public var frameStarts: [Int] = []

    private var time: UInt64 = 1_000_000
    private var trackingID: Int32 = 0

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
    }

    /// One frame: each finger's position (nil: lifted this frame), with BTN_TOUCH changes.
    private mutating func frame(_ fingers: [(slot: Int32, x: Int32, y: Int32, down: Bool)], touchChange: Int32? = nil) {
        frameStarts.append(events.count)
        for finger in fingers {
            emit(EV.abs, ABS.mtSlot, finger.slot)
            if finger.down {
                emit(EV.abs, ABS.mtPositionX, finger.x)
                emit(EV.abs, ABS.mtPositionY, finger.y)
            } else {
                emit(EV.abs, ABS.mtTrackingID, -1)
            }
        }
        if let touchChange { emit(EV.key, BTN.touch, touchChange) }
        emit(EV.syn, SYN.report, 0)
        frames += 1
        time += Self.frameInterval
        duration = time
    }

    private mutating func touchDown(_ fingers: [(slot: Int32, x: Int32, y: Int32)]) {
        frameStarts.append(events.count)
        for finger in fingers {
            emit(EV.abs, ABS.mtSlot, finger.slot)
            trackingID = (trackingID + 1) & 0xffff
            emit(EV.abs, ABS.mtTrackingID, trackingID)
            emit(EV.abs, ABS.mtPositionX, finger.x)
            emit(EV.abs, ABS.mtPositionY, finger.y)
        }
        emit(EV.key, BTN.touch, 1)
        emit(EV.syn, SYN.report, 0)
        frames += 1
        time += Self.frameInterval
        duration = time
    }

    private mutating func idle(_ microseconds: UInt64) {
        time += microseconds
        duration = time
    }

    /// Ten fingers go down around the centre, drag together while the hand opens and
    /// turns (pinch + rotate + drag at once) for two seconds, then lift; `laps` times.
    public static func dragPinch(laps: Int) -> SyntheticStream {
        var stream = SyntheticStream()
        let slots = Array(Int32(0)..<10)
        func positions(_ step: Int) -> [(slot: Int32, x: Int32, y: Int32)] {
            let t = Double(step) / 480
            let radius = 400 + 800 * t
            let angle = 1.2 * t
            let centreX = 1200 + 1600 * t
            let centreY = 2048 + 300 * (t - 0.5)
            return slots.map { slot in
                let a = angle + Double(slot) * 2 * Double.pi / 10
                return (slot, Int32(centreX + radius * cos(a)), Int32(centreY + radius * sin(a)))
            }
        }
        for _ in 0..<laps {
            stream.touchDown(positions(0))
            for step in 1..<480 {
                stream.frame(positions(step).map { ($0.slot, $0.x, $0.y, true) })
            }
            stream.frame(slots.map { ($0, 0, 0, false) }, touchChange: 0)
            stream.idle(200_000)
        }
        return stream
    }

    /// One finger: a single tap, a double tap, a long press held still for a second (the
    /// long-press and multi-tap timers fire between frames), a two-finger tap; `laps` times.
    public static func tapLongPress(laps: Int) -> SyntheticStream {
        var stream = SyntheticStream()
        func hold(_ fingers: [(slot: Int32, x: Int32, y: Int32)], frames: Int) {
            stream.touchDown(fingers)
            for step in 1..<frames {
                let jitter = Int32(step % 2)
                stream.frame(fingers.map { ($0.slot, $0.x + jitter, $0.y, true) })
            }
            stream.frame(fingers.map { ($0.slot, 0, 0, false) }, touchChange: 0)
        }
        for lap in 0..<laps {
            let x = Int32(1000 + (lap % 8) * 250)
            hold([(0, x, 1000)], frames: 20)           // tap (83 ms)
            stream.idle(600_000)                       // multi-tap window closes
            hold([(0, x, 2000)], frames: 15)           // double tap
            stream.idle(100_000)
            hold([(0, x + 5, 2005)], frames: 15)
            stream.idle(600_000)
            hold([(0, x, 3000)], frames: 240)          // long press (1 s)
            stream.idle(300_000)
            hold([(0, x, 1500), (1, x + 400, 1500)], frames: 20)  // two-finger tap
            stream.idle(600_000)
        }
        return stream
    }
}

/// A pipeline that keeps running over a synthetic stream lap after lap, so it can be
/// warmed up once and then measured in chunks of whole frames.
public final class SteadyPipeline<S: CountedSink> {
    public let stream: SyntheticStream
    public var pipeline: DevicePipeline
    public var sink: S
    private var frameIndex = 0
    private var lap: UInt64 = 0

    public init(
        stream: SyntheticStream, sink: S, configuration: EngineConfiguration = EngineConfiguration(),
        touch: TouchHygieneSettings = TouchHygieneSettings()
    ) {
        self.stream = stream
        self.sink = sink
        pipeline = DevicePipeline(device: SyntheticStream.device, geometry: DeviceGeometry(), configuration: configuration, touch: touch)
    }

    /// Runs the next `frames` frames (wrapping to a new lap, later in time, at the end).
    public func run(frames: Int) {
        var remaining = frames
        while remaining > 0 {
            let end = min(stream.frames, frameIndex + remaining)
            let first = stream.frameStarts[frameIndex]
            let last = end == stream.frames ? stream.events.count : stream.frameStarts[end]
            _ = feed(stream.events[first..<last], timeOffset: .microseconds(lap &* stream.duration), into: &pipeline, sink: &sink)
            remaining -= end - frameIndex
            frameIndex = end
            if frameIndex == stream.frames {
                frameIndex = 0
                lap += 1
            }
        }
    }

    /// Gestures emitted so far (the last id handed out).
    public var gestureCount: Int { sink.emitted }

    public var eventsPerFrame: Double { Double(stream.events.count) / Double(stream.frames) }
}
