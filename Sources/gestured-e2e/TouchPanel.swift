import EvdevInput
import GestureCore
import GestureTestSupport
import Glibc
import SystemCalls

/// A virtual touch device (GestureTestSupport's `VirtualDevice`: uinput, from a real
/// device's description) driven finger by finger at a finger's pace; failures are the
/// case's.
final class TouchPanel {
    private let device: VirtualDevice
    var description: DeviceDescription { device.description }
    var touchProtocol: TouchProtocol { device.touchProtocol }
    var name: String { device.name }
    var devnode: String { device.devnode ?? "(removed)" }
    /// Fingers down now: finger number → where.
    var fingers: [Int: Spot] { device.fingers }

    init(_ description: DeviceDescription) throws(CaseFailure) {
        do {
            device = try VirtualDevice(description)
        } catch {
            throw CaseFailure("cannot create the uinput device \"\(description.name)\": \(error)")
        }
    }

    /// A panel from a corpus description file (`.desc`, `.prop`, or a recording with a header),
    /// optionally renamed (the kernel reports the new name).
    init(descriptionFile path: String, name: String? = nil) throws(CaseFailure) {
        do {
            device = try VirtualDevice(descriptionFile: path, name: name)
        } catch {
            throw CaseFailure("cannot make a device from \(path): \(error)")
        }
    }

    /// Unplugs the device (the kernel removes its node).
    func unplug() { device.unplug() }

    /// Writes raw events (SYN_REPORTs included).
    func write(_ events: [InputEvent]) throws(CaseFailure) {
        do {
            try device.write(events)
        } catch {
            throw CaseFailure("writing to \(devnode): \(error)")
        }
    }

    /// Sets the fingers down after this frame (absent fingers lift) and writes the frame.
    func frame(_ next: [Int: Spot]) throws(CaseFailure) {
        do {
            try device.frame(next)
        } catch {
            throw CaseFailure("writing to \(devnode): \(error)")
        }
    }

    /// Writes these frames one after another in a single write (no wait between them can
    /// be stretched by the host); the fingers are those of the last.
    func frames(_ sequence: [[Int: Spot]]) throws(CaseFailure) {
        do {
            try device.frames(sequence)
        } catch {
            throw CaseFailure("writing to \(devnode): \(error)")
        }
    }

    /// A zero-duration ghost at `spot`: down and up in one frame (`VirtualDevice.ghostInOneFrame`).
    func ghost(at spot: Spot) throws(CaseFailure) {
        do {
            try device.ghostInOneFrame(at: spot)
        } catch {
            throw CaseFailure("writing to \(devnode): \(error)")
        }
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

    /// One finger down at the top edge's middle (3 % of the height), down to 59 % in eight
    /// frames, then lifted: a swipe from the kiosk tier's reserved top band. `between` runs
    /// before each move (a client's reader kept going while the stroke plays).
    func swipeDownFromTopEdge(between: () -> Void) throws(CaseFailure) {
        try frame([0: Spot(0.5, 0.03)])
        for step in 1...8 {
            between()
            try frame([0: Spot(0.5, 0.03 + 0.07 * Double(step))])
        }
        try lift()
    }
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
            var descriptors = [
                pollfd(fd: device.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: subscriber.socket.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            _ = try? Polling.poll(&descriptors, timeoutMilliseconds: Int32((deadline - now + 999) / 1000))
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
