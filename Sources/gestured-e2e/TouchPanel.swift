import EvdevInput
import GestureCore
import Recordings
#if canImport(Glibc)
import Glibc
#endif

/// A normalised point on the panel (0…1, origin top-left), as the daemon reports locations.
struct Spot: Equatable {
    var x: Double
    var y: Double
    init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// A virtual touch device made through uinput from a real device's description, driven
/// finger by finger. Writes whatever the device's protocol needs: MT protocol B slots and
/// tracking ids, protocol A `SYN_MT_REPORT` lists, `BTN_TOUCH`, the single-touch axes, and
/// the `BTN_TOOL_*` finger counts a touchpad reports.
final class TouchPanel {
    enum TouchProtocol: String { case slots = "protocol B", protocolA = "protocol A", singleTouch = "single touch" }

    let description: DeviceDescription
    let touchProtocol: TouchProtocol
    private(set) var device: VirtualDevice?
    var name: String { description.name }
    var devnode: String { device?.devnode ?? "(removed)" }
    /// Fingers down now: finger number → where.
    private(set) var fingers: [Int: Spot] = [:]
    private var nextTrackingID: Int32 = 100
    private var trackingIDs: [Int: Int32] = [:]

    init(_ description: DeviceDescription) throws(CaseFailure) {
        self.description = description
        touchProtocol = description.hasSlots ? .slots : description.isMultitouch ? .protocolA : .singleTouch
        do {
            device = try VirtualDevice(description)
        } catch {
            throw CaseFailure("cannot create the uinput device \"\(description.name)\": \(error)")
        }
    }

    /// A panel from a corpus description file (`.desc`, `.prop`, or a recording with a header),
    /// optionally renamed (the kernel reports the new name).
    convenience init(descriptionFile path: String, name: String? = nil) throws(CaseFailure) {
        var description: DeviceDescription
        do {
            description = try RecordingReader.readDevice(path: path)
        } catch {
            throw CaseFailure("cannot read \(path): \(error)")
        }
        if let name { description.name = name }
        try self.init(description)
    }

    /// Unplugs the device (the kernel removes its node).
    func unplug() { device = nil }

    /// Writes raw events (SYN_REPORTs included).
    func write(_ events: [InputEvent]) throws(CaseFailure) {
        guard let device else { throw CaseFailure("\(name) was unplugged") }
        do {
            try device.write(events)
        } catch {
            throw CaseFailure("writing to \(device.devnode): \(error)")
        }
    }

    /// Sets the fingers down after this frame (absent fingers lift) and writes the frame.
    func frame(_ next: [Int: Spot]) throws(CaseFailure) {
        try write(events(for: next))
        fingers = next
    }

    /// The events of one frame going from `fingers` to `next`.
    func events(for next: [Int: Spot]) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            if description.has(type, code) || type == EV.syn { events.append(InputEvent(time: .zero, type: type, code: code, value: value)) }
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
                        trackingIDs[finger] = nextTrackingID
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
            for finger in next.keys.sorted() {
                let spot = next[finger]!
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
        return events
    }

    /// A normalised coordinate in device units.
    func axis(_ code: UInt16, _ fraction: Double) -> Int32 {
        guard let info = description.absInfo[code] else { return 0 }
        return info.minimum + Int32((Double(info.maximum - info.minimum) * fraction).rounded())
    }

    // MARK: gestures a finger makes

    /// Touches down at `spots` (one finger each), holds `hold` ms, lifts all.
    func tap(_ spots: [Spot], hold: Double = 60) throws(CaseFailure) {
        try frame(Dictionary(uniqueKeysWithValues: spots.enumerated().map { ($0.offset, $0.element) }))
        pause(milliseconds: hold)
        try frame([:])
    }

    /// Moves every finger from `from` to `to` in `steps` frames over `duration` ms (fingers
    /// already down stay down; fingers not down touch down first).
    func move(from: [Spot], to: [Spot], duration: Double, steps: Int) throws(CaseFailure) {
        if fingers.isEmpty { try frame(Dictionary(uniqueKeysWithValues: from.enumerated().map { ($0.offset, $0.element) })) }
        for step in 1...steps {
            pause(milliseconds: duration / Double(steps))
            let t = Double(step) / Double(steps)
            let spots = zip(from, to).map { Spot($0.x + ($1.x - $0.x) * t, $0.y + ($1.y - $0.y) * t) }
            try frame(Dictionary(uniqueKeysWithValues: spots.enumerated().map { ($0.offset, $0.element) }))
        }
    }

    func lift() throws(CaseFailure) { try frame([:]) }
}

/// The driver's own reader of a device node (libevdev, CLOCK_MONOTONIC): the events exactly
/// as the kernel delivered them, with the kernel's timestamps.
final class NodeReader {
    private let device: EvdevDevice
    private(set) var events: [InputEvent] = []

    init(path: String) throws(CaseFailure) {
        do {
            device = try EvdevDevice(path: path)
            try device.useMonotonicClock()
        } catch {
            throw CaseFailure("cannot read \(path): \(error)")
        }
    }

    /// Reads whatever arrives until CLOCK_MONOTONIC reaches `deadline` (µs), and meanwhile
    /// keeps `subscriber` read too, so the daemon never has to queue for it.
    func read(until deadline: UInt64, alongside subscriber: Subscriber) throws {
        while true {
            try drain()
            subscriber.receive(timeout: 0)
            let now = monotonicMicroseconds()
            guard now < deadline else { return }
            var descriptors = [pollfd(fd: device.fileDescriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: subscriber.fd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, 2, Int32((deadline - now + 999) / 1000))
        }
    }

    private func drain() throws {
        let outcome: ReadOutcome
        do {
            outcome = try device.readAvailable { events.append($0) }
        } catch {
            throw CaseFailure("reading \(device.path): \(error)")
        }
        switch outcome {
        case .drained(_, let resyncs) where resyncs > 0:
            throw StimulusMissed("the driver's own reader of \(device.path) lost events (SYN_DROPPED)")
        case .drained:
            return
        case .deviceGone:
            throw CaseFailure("\(device.path) vanished while being played")
        }
    }
}
