import GestureCore
import GestureProtocol
import GestureTestSupport
import SystemCalls

/// `app-fingers` and `app-long-press` on a pass-through device, against a daemon of its
/// own, read on the real clone node: with `app-fingers = 1` a pinch's second finger never
/// appears on the clone while a subscriber gets the pinch; with `app-long-press = false` a
/// resting touch never appears on it while a subscriber gets the long press, and a tap and
/// a drag reach it frame for frame as written (the tap at its lift).
struct AppTouchCases {
    let passThrough: PassThroughCases

    static let deviceName = "e2e pass-through app ELAN Touchscreen"

    /// The device's `app-fingers = 1`; the left half holds resting touches.
    static let config = """
        [daemon]
        log-level = "trace"

        [[device]]
        match-name = "\(deviceName)"
        pass-through = true
        app-fingers = 1

        [[device.region]]
        name = "no-long-press"
        rect = [0.0, 0.0, 0.5, 1.0]
        app-long-press = false

        [[device]]
        match-name = "*"
        enabled = false
        """

    private typealias Started = (panel: TouchPanel, daemon: DaemonProcess, subscriber: Subscriber, clone: String, configPath: String)

    func run(_ harness: Harness) {
        let fingers = "pass-through: app-fingers = 1: a pinch's second finger never appears on the clone; a subscriber gets the pinch"
        let longPress =
            "pass-through: app-long-press = false: a resting touch never appears on the clone while a subscriber gets its long press; a tap and a drag reach the clone as written"
        guard harness.wants(fingers) || harness.wants(longPress) else { return }
        var started: Started?
        func start() throws -> Started {
            if let started { return started }
            let new = try passThrough.start(config: Self.config, files: "pass-through-app", deviceName: Self.deviceName)
            started = new
            return new
        }
        var attempt = 0
        harness.run(fingers) {
            attempt += 1
            try pinch(try start(), shift: 0.02 * Double(attempt))
        }
        attempt = 0
        harness.run(longPress) {
            attempt += 1
            try restTapAndDrag(try start(), shift: 0.02 * Double(attempt))
        }
        if let started, harness.failures.contains(where: { $0 == fingers || $0 == longPress }) {
            say("gestured log: \(tail(started.daemon.logPath, lines: 30))")
        }
        started?.panel.unplug()
        started?.daemon.stop()
    }

    /// Two fingers on the right half (the device's `app-fingers = 1`), the second a frame
    /// after the first, spreading apart. `shift`: each attempt elsewhere (the kernel drops
    /// values a node repeats).
    private func pinch(_ started: Started, shift: Double) throws {
        let (panel, _, subscriber, clonePath, _) = started
        _ = subscriber.drain(quiet: 0.45)
        let reader = try NodeReader(path: clonePath)
        var writer = TouchFrameWriter(panel.description)
        var written: [InputEvent] = []
        func play(_ fingers: [Int: Spot]) throws {
            let events = writer.frame(fingers)
            written += events
            try panel.write(events)
            pause(milliseconds: 20)
        }
        let y = 0.5 + shift
        try play([0: Spot(0.7, y)])
        for step in 0...20 {
            let t = Double(step) / 20
            try play([0: Spot(0.7 - 0.15 * t, y), 1: Spot(0.8 + 0.15 * t, y)])
        }
        try play([:])
        let seen = try subscriber.gestures(until: "the pinch ended") {
            $0.device == panel.name && $0.gesture == .pinch && $0.phase != .began && $0.phase != .changed
        }
        try expect(seen.last?.phase == .ended, "the pinch \(seen.last.map { "\($0.phase)" } ?? "never came")")
        try expect(seen.contains { $0.gesture == .pinch && $0.fingers == 2 }, "the subscriber's pinch never had 2 fingers")
        try reader.read(until: monotonicMicroseconds() + 300_000, alongside: subscriber)

        var device = EvdevReader()
        device.read(written)
        let ids = Set(device.frames.flatMap { $0.slots.values.map(\.id) })
        let first = try required(device.frames.first?.slots.values.first?.id, "the first finger's tracking id")
        var clone = EvdevReader()
        clone.read(reader.events)
        let cloneIDs = Set(clone.frames.flatMap { $0.slots.values.map(\.id) })
        try expect(ids.count == 2, "the pinch was written with tracking ids \(ids)")
        try expect(cloneIDs == [first], "the clone showed tracking ids \(cloneIDs); the first finger's is \(first)")
        for frame in clone.frames {
            try expect(frame.slots.count <= 1, "two touches on the clone: \(frame.slots)")
            try expect(!frame.keysDown.contains(BTN.toolDoubleTap), "the clone counted two fingers (BTN_TOOL_DOUBLETAP)")
        }
        try expect(
            clone.frames.last?.slots.isEmpty == true && clone.frames.last?.keysDown.isEmpty == true,
            "left on the clone: \(clone.frames.last.map { "\($0.slots) keys \($0.keysDown)" } ?? "nothing at all")")
    }

    /// On the left half (`app-long-press = false`): a touch resting until the subscriber's
    /// long press, a tap, then a drag whose first movement is far beyond the tap's slop.
    private func restTapAndDrag(_ started: Started, shift: Double) throws {
        let (panel, _, subscriber, clonePath, _) = started
        _ = subscriber.drain(quiet: 0.45)
        let reader = try NodeReader(path: clonePath)
        var writer = TouchFrameWriter(panel.description)
        func play(_ fingers: [Int: Spot]) throws -> [InputEvent] {
            let events = writer.frame(fingers)
            try panel.write(events)
            return events
        }
        func pressEnded(_ what: String) throws -> [GestureMessage] {
            try subscriber.gestures(until: what) {
                $0.device == panel.name && $0.gesture == .press && ($0.phase == .ended || $0.phase == .cancelled)
            }
        }

        // The rest: lifted only once the subscriber has its long press.
        let rest = try play([0: Spot(0.2, 0.3 + shift)])
        _ = try subscriber.gestures(until: "the resting touch's long press") {
            $0.device == panel.name && $0.gesture == .longPress && $0.phase == .began
        }
        let restLift = try play([:])
        _ = try pressEnded("the resting touch's press ended")

        // The tap.
        let tapDown = try play([0: Spot(0.3, 0.6 + shift)])
        pause(milliseconds: 60)
        let tapUp = try play([:])
        let tap = try pressEnded("the tap's press ended")
        try requireTapStimulus(tap, meant: 60)
        try expect(tap.contains { $0.gesture == .tap }, "the subscriber got no tap: \(tap.map { "\($0.gesture) \($0.phase)" })")

        // The drag: every step 5 % of the width, far beyond the slop.
        var drag: [InputEvent] = []
        for step in 0...8 {
            drag += try play([0: Spot(0.1 + 0.05 * Double(step), 0.8 - shift)])
            pause(milliseconds: 16)
        }
        drag += try play([:])
        let dragged = try pressEnded("the drag's press ended")
        if dragged.contains(where: { $0.gesture == .longPress }) {
            throw StimulusMissed("the drag's first movement came past the long-press duration by kernel time")
        }

        var expected = EvdevReader()
        expected.read(tapDown + tapUp + drag)
        var received = EvdevReader()
        let deadline = monotonicMicroseconds() + 10_000_000
        while received.frames.count < expected.frames.count && monotonicMicroseconds() < deadline {
            try reader.read(until: monotonicMicroseconds() + 50_000, alongside: subscriber)
            received = EvdevReader()
            received.read(reader.events)
        }
        try reader.read(until: monotonicMicroseconds() + 200_000, alongside: subscriber)
        received = EvdevReader()
        received.read(reader.events)
        var resting = EvdevReader()
        resting.read(rest + restLift)
        let restID = try required(resting.frames.first?.slots.values.first?.id, "the resting touch's tracking id")
        try expect(
            !received.frames.contains { $0.slots.values.contains { $0.id == restID } },
            "the resting touch (tracking id \(restID)) appeared on the clone")
        func frames(_ reader: EvdevReader) -> String {
            reader.frames.map { "\($0.slots) \($0.axes) keys \($0.keysDown)" }.joined(separator: "; ")
        }
        try expect(
            received.frames == expected.frames, "the clone showed [\(frames(received))] for the tap and drag's [\(frames(expected))]")
    }
}
