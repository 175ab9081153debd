import EvdevInput
import GestureCore
import GestureProtocol
import Recordings
import SystemCalls

/// A normalised point on a panel (0…1, origin top-left), as the daemon reports locations.
public struct Spot: Equatable, Sendable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// How a device reports touches, read from its description.
public enum TouchProtocol: String, Sendable {
    case slots = "protocol B"
    case protocolA = "protocol A"
    case singleTouch = "single touch"

    public init(_ description: DeviceDescription) {
        self = description.hasSlots ? .slots : description.isMultitouch ? .protocolA : .singleTouch
    }
}

/// Turns "these fingers are down here now" into the evdev events a real device of the
/// described kind sends for that frame: MT protocol B slots and tracking ids, protocol A
/// `SYN_MT_REPORT` lists, `BTN_TOUCH`, the single-touch axes and the `BTN_TOOL_*` finger
/// counts a touchpad reports, ending with `SYN_REPORT`. Only codes the device has are
/// written. Pure: `VirtualDevice` writes its frames to the kernel.
public struct TouchFrameWriter: Sendable {
    public let description: DeviceDescription
    public let touchProtocol: TouchProtocol
    /// Fingers down now: finger number → where.
    public private(set) var fingers: [Int: Spot] = [:]
    private var nextTrackingID: Int32 = 100

    public init(_ description: DeviceDescription) {
        self.description = description
        touchProtocol = TouchProtocol(description)
    }

    /// The events of one frame going from `fingers` to `next` (absent fingers lift), all at
    /// `time`; `fingers` becomes `next`.
    public mutating func frame(_ next: [Int: Spot], time: Timestamp = .zero) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            if description.has(type, code) || type == EV.syn { events.append(InputEvent(time: time, type: type, code: code, value: value)) }
        }
        switch touchProtocol {
        case .slots:
            for finger in Set(fingers.keys).union(next.keys).sorted() {
                let slot = Int32(finger)
                if let spot = next[finger] {
                    guard spot != fingers[finger] else { continue }
                    add(EV.abs, ABS.mtSlot, slot)
                    if fingers[finger] == nil {
                        nextTrackingID += 1
                        add(EV.abs, ABS.mtTrackingID, nextTrackingID)
                    }
                    add(EV.abs, ABS.mtPositionX, axis(ABS.mtPositionX, spot.x))
                    add(EV.abs, ABS.mtPositionY, axis(ABS.mtPositionY, spot.y))
                } else {
                    add(EV.abs, ABS.mtSlot, slot)
                    add(EV.abs, ABS.mtTrackingID, -1)
                }
            }
        case .protocolA:
            for (finger, spot) in next.sorted(by: { $0.key < $1.key }) {
                add(EV.abs, ABS.mtTrackingID, Int32(finger))
                add(EV.abs, ABS.mtPositionX, axis(ABS.mtPositionX, spot.x))
                add(EV.abs, ABS.mtPositionY, axis(ABS.mtPositionY, spot.y))
                add(EV.syn, SYN.mtReport, 0)
            }
            if next.isEmpty { add(EV.syn, SYN.mtReport, 0) }
        case .singleTouch:
            break
        }
        if fingers.isEmpty != next.isEmpty { add(EV.key, BTN.touch, next.isEmpty ? 0 : 1) }
        if fingers.count != next.count {
            let tools = [BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap, BTN.toolQuintTap]
            if fingers.count > 0, fingers.count <= tools.count { add(EV.key, tools[fingers.count - 1], 0) }
            if next.count > 0, next.count <= tools.count { add(EV.key, tools[next.count - 1], 1) }
        }
        if let first = next.keys.min(), let spot = next[first] {
            add(EV.abs, ABS.x, axis(ABS.x, spot.x))
            add(EV.abs, ABS.y, axis(ABS.y, spot.y))
        }
        add(EV.syn, SYN.report, 0)
        fingers = next
        return events
    }

    /// A normalised coordinate in device units.
    public func axis(_ code: UInt16, _ fraction: Double) -> Int32 {
        guard let info = description.absInfo[code] else { return 0 }
        return info.minimum + Int32((Double(info.maximum - info.minimum) * fraction).rounded())
    }
}

/// A virtual touch device for the end-to-end tests: a real kernel device made through
/// uinput (EvdevInput's `UinputDevice`) from a real device's description, driven finger by
/// finger (`TouchFrameWriter`). The kernel stamps the events; pacing is the caller's.
public final class VirtualDevice {
    public let description: DeviceDescription
    private var writer: TouchFrameWriter
    public private(set) var device: UinputDevice?

    public var name: String { description.name }
    public var touchProtocol: TouchProtocol { writer.touchProtocol }
    /// The evdev node the kernel made, nil once unplugged.
    public var devnode: String? { device?.devnode }
    /// Fingers down now: finger number → where.
    public var fingers: [Int: Spot] { writer.fingers }

    /// Creates the device; throws as `UinputDevice` does (`ENOENT` on `/dev/uinput`: this
    /// kernel has no uinput).
    public init(_ description: DeviceDescription) throws(SystemError) {
        self.description = description
        writer = TouchFrameWriter(description)
        device = try UinputDevice(description)
    }

    /// A device from a corpus description file (`.desc`, `.prop`, or a recording with a
    /// header), optionally renamed (the kernel reports the new name).
    public convenience init(descriptionFile path: String, name: String? = nil) throws {
        var description = try RecordingReader.readDevice(path: path)
        if let name { description.name = name }
        try self.init(description)
    }

    /// Unplugs the device (the kernel removes its node).
    public func unplug() { device = nil }

    /// Writes raw events (with their SYN_REPORTs); `ENODEV` once unplugged.
    public func write(_ events: [InputEvent]) throws(SystemError) {
        guard let device else { throw SystemError(.operationNotSupportedByDevice, call: "write", path: "\(name) (unplugged)") }
        try device.write(events)
    }

    /// Sets the fingers down after this frame (absent fingers lift) and writes the frame.
    public func frame(_ next: [Int: Spot]) throws(SystemError) {
        var writer = writer
        try write(writer.frame(next))
        self.writer = writer
    }

    /// Writes `sequence` frame after frame in one `write(2)`, so the kernel stamps them all
    /// within it; the fingers are those of the last frame.
    public func frames(_ sequence: [[Int: Spot]]) throws(SystemError) {
        var writer = writer
        try write(sequence.flatMap { writer.frame($0) })
        self.writer = writer
    }

    /// A contact at `spot` that touches down and lifts within one frame (one `SYN_REPORT`):
    /// a zero-duration ghost whatever the kernel's timestamps (two frames in one write can
    /// be stamped more than a millisecond apart in an emulated guest). No finger may be down.
    public func ghostInOneFrame(at spot: Spot) throws(SystemError) {
        var writer = writer
        var events = writer.frame([0: spot])
        if let last = events.last, last.type == EV.syn, last.code == SYN.report { events.removeLast() }
        try write(events + writer.frame([:]))
        self.writer = writer
    }

    /// A normalised coordinate in device units.
    public func axis(_ code: UInt16, _ fraction: Double) -> Int32 {
        writer.axis(code, fraction)
    }
}
