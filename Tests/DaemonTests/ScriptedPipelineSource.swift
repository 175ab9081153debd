import Daemon
import GestureCore
import GestureProtocol
import Glibc
import SystemPackage

/// A protocol-B touchscreen the test drives through a pipe: each byte written feeds
/// `script[byte]` (evdev events on a virtual clock) through a real `DevicePipeline` into the
/// daemon's sink, as `EvdevSource` feeds what it read. It announces no deadline: the
/// pipeline's timers fire only inside `feed`, as when the daemon reads input queued past a
/// deadline before it fires its timers. As `EvdevSource` does: the byte `unplug` makes it
/// finish as an unplugged device does, the byte `reload` starts its pipeline over as a
/// reload does, and closing it cancels what its pipeline had down.
final class ScriptedPipelineSource: InputSource {
    static let description: DeviceDescription = {
        let absInfo: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(minimum: 0, maximum: 1000, resolution: 10),
            ABS.y: AbsInfo(minimum: 0, maximum: 500, resolution: 10),
            ABS.mtSlot: AbsInfo(minimum: 0, maximum: 4),
            ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AbsInfo(minimum: 0, maximum: 1000, resolution: 10),
            ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 500, resolution: 10),
        ]
        return DeviceDescription(
            name: "scripted screen", properties: [INPUTPROP.direct], codes: [EV.key: [BTN.touch], EV.abs: Set(absInfo.keys)],
            absInfo: absInfo)
    }()

    let device: DeviceInfo
    let pipe: TriggerPipe
    var script: [UInt8: [InputEvent]] = [:]
    private var pipeline: DevicePipeline
    private let touch: TouchHygieneSettings

    init(touch: TouchHygieneSettings) throws {
        self.touch = touch
        device = DeviceInfo(name: Self.description.name, kind: .touchscreen, path: "/dev/input/test-scripted")
        pipe = try TriggerPipe()
        pipeline = Self.pipeline(touch: touch)
    }

    /// The pipeline of the scripted screen, replacing `previous` after a reload.
    private static func pipeline(touch: TouchHygieneSettings, replacing previous: DevicePipeline? = nil) -> DevicePipeline {
        DevicePipeline(
            device: description, geometry: DeviceGeometry(), configuration: EngineConfiguration(), touch: touch, replacing: previous)
    }

    var fileDescriptor: FileDescriptor? { pipe.readEnd }
    var nextDeadline: Timestamp? { nil }

    func trigger(_ byte: UInt8) { pipe.trigger(byte) }

    /// The trigger that unplugs the device.
    static let unplug: UInt8 = 0xFF
    /// The trigger that reloads the device's settings (unchanged).
    static let reload: UInt8 = 0xFE

    func readAvailable(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        var unplugged = false
        pipe.drain { byte in
            switch byte {
            case Self.unplug:
                unplugged = true
            case Self.reload:
                pipeline.cancelAll(at: now, into: &sink)
                pipeline = Self.pipeline(touch: touch, replacing: pipeline)
            default:
                for event in script[byte] ?? [] { pipeline.feed(event, into: &sink) }
            }
            return !unplugged
        }
        return unplugged ? .finished(reason: "unplugged") : .active
    }

    func deadlineReached(now: Timestamp, into sink: inout DaemonSink) -> InputStatus { .active }

    func close(now: Timestamp, into sink: inout DaemonSink) {
        pipeline.cancelAll(at: now, into: &sink)
    }

    /// A touch in slot 0 at the middle of the screen from `down` to `up` (µs of the virtual
    /// clock), with one resting report at `rest` in between if given.
    static func touch(id: Int32, down: UInt64, rest: UInt64? = nil, up: UInt64) -> [InputEvent] {
        func at(_ time: UInt64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value)
        }
        var events = [
            at(down, EV.abs, ABS.mtSlot, 0), at(down, EV.abs, ABS.mtTrackingID, id), at(down, EV.abs, ABS.mtPositionX, 500),
            at(down, EV.abs, ABS.mtPositionY, 250), at(down, EV.syn, SYN.report, 0),
        ]
        if let rest { events += [at(rest, EV.abs, ABS.mtPositionX, 501), at(rest, EV.syn, SYN.report, 0)] }
        events += [at(up, EV.abs, ABS.mtTrackingID, -1), at(up, EV.syn, SYN.report, 0)]
        return events
    }
}
