import GestureCore
import GestureTestSupport
import SystemCalls

/// Touch hygiene (`[touch]`) on a pass-through device, against a daemon of its
/// own: what it drops must never reach a reader of the clone, and a stuck contact must be
/// lifted there while the finger stays down on the panel.
struct HygieneCases {
    let passThrough: PassThroughCases

    static let deviceName = "e2e hygiene ELAN Touchscreen"
    static let debounce = 80.0  // ms
    static let stuckAfter = 2.0  // s
    /// The phantom series' period: long enough that the emulated machine's scheduling on a
    /// busy host (a wake-up late by tens of ms, a write that takes as long) stays inside the
    /// 2 % the rule allows.
    static let phantomPeriod = 4_000.0  // ms

    static let config = """
        [daemon]
        log-level = "info"

        [[device]]
        match-name = "\(deviceName)"
        pass-through = true

        [device.touch]
        debounce = \(debounce)
        stuck-after = \(stuckAfter)
        phantom = "suppress"
        shortest-contact = 1

        [[device]]
        match-name = "*"
        enabled = false
        """

    func run(_ harness: Harness) {
        let name =
            "touch hygiene: zero-duration ghosts, a bounce and a phantom series (from its fourth tap) never reach a reader of the clone; a stuck contact is lifted on the clone"
        guard harness.wants(name) else { return }
        var started: (panel: TouchPanel, daemon: DaemonProcess, subscriber: Subscriber, clone: String, configPath: String)?
        var attempt = 0
        harness.run(name) {
            if started == nil {
                started = try passThrough.start(config: Self.config, files: "hygiene", deviceName: Self.deviceName)
            }
            guard let started else { return }
            let (panel, daemon, subscriber, clonePath, _) = started
            attempt += 1
            // Each attempt touches elsewhere (the kernel drops values a node repeats), and
            // starts after every earlier touch's lift by more than the debounce.
            let shift = 0.04 * Double(attempt - 1)
            pause(milliseconds: 300)
            let reader = try NodeReader(path: clonePath)
            func settle(_ milliseconds: Double) throws {
                try reader.read(until: monotonicMicroseconds() + UInt64(milliseconds * 1000), alongside: subscriber)
            }
            func trackingIDs() -> [Int32] { reader.events.filter { $0.type == EV.abs && $0.code == ABS.mtTrackingID }.map(\.value) }
            func downs() -> Int { trackingIDs().filter { $0 >= 0 }.count }
            func touchKeyDowns() -> Int { reader.events.filter { $0.type == EV.key && $0.code == BTN.touch && $0.value == 1 }.count }

            // Zero-duration ghosts (shortest-contact): each down and up in one frame (two
            // frames in one write were once stamped over a millisecond apart in the guest,
            // a touch then); not even the first reaches the clone.
            for index in 0..<3 {
                try panel.ghost(at: Spot(0.9, 0.1 + shift + 0.01 * Double(index)))
                pause(milliseconds: 200)
            }
            try settle(300)
            try expect(
                downs() == 0 && touchKeyDowns() == 0, "the clone showed zero-duration ghosts (\(downs()) touch-downs): \(reader.events)")

            // A bounce: a tap, and right after its lift a second one where it lifted. The lift
            // and the bounce go in one write, so that no wait between them can be stretched
            // past the debounce by a busy host; the kernel stamps both within that write.
            try panel.frame([0: Spot(0.2 + shift, 0.5)])
            pause(milliseconds: 60)
            let lift = monotonicMicroseconds()
            try panel.frames([[:], [0: Spot(0.2 + shift, 0.5)]])
            let bounceDown = monotonicMicroseconds()
            pause(milliseconds: 60)
            try panel.frame([:])
            if bounceDown - lift >= UInt64(Self.debounce * 1000) {
                throw StimulusMissed("the write of the lift and its bounce took \((bounceDown - lift) / 1000) ms, past the debounce")
            }
            try settle(300)
            try expect(downs() == 1, "the clone showed \(downs()) touches for a tap and its bounce: \(reader.events)")

            // A phantom: five short taps at one point on a fixed period; the clone shows three.
            var downWrites: [WriteSpan] = []
            let first = monotonicMicroseconds() + 200_000
            for index in 0..<5 {
                pause(until: first + UInt64(Double(index) * Self.phantomPeriod * 1000))
                let before = monotonicMicroseconds()
                try panel.frame([0: Spot(0.7, 0.3 + shift)])
                downWrites.append(WriteSpan(before: before, after: monotonicMicroseconds()))
                pause(milliseconds: 40)
                try panel.frame([:])
                try settle(100)
            }
            if !Self.surelyOnOnePeriod(downWrites) {
                let intervals = zip(downWrites.dropFirst(), downWrites).map { ($0.after - $1.after) / 1000 }
                throw StimulusMissed("the phantom taps came \(intervals) ms apart, not surely on one period")
            }
            try settle(300)
            try expect(downs() == 1 + 3, "the clone showed \(downs() - 1) of five periodic taps, not the first three: \(reader.events)")

            // A stuck contact: down and motionless past stuck-after; lifted on the clone while
            // the finger stays down; the next touch is new and reaches the clone.
            try panel.frame([0: Spot(0.5 + shift, 0.8)])
            let stuckDown = monotonicMicroseconds()
            try settle(Self.stuckAfter * 1000 + 800)
            let lifts = trackingIDs().filter { $0 < 0 }
            try expect(downs() == 5, "the stuck contact never touched down on the clone: \(reader.events)")
            try expect(
                lifts.count == 5 && panel.fingers.count == 1,
                "the stuck contact was not lifted on the clone \(Self.stuckAfter) s after it touched down (\((monotonicMicroseconds() - stuckDown) / 1000) ms ago): \(reader.events)"
            )
            try panel.frame([:])
            // Past the debounce: the next touch at the same spot is not a bounce of the lift.
            pause(milliseconds: Self.debounce + 100)
            try panel.frame([0: Spot(0.5 + shift, 0.8)])
            pause(milliseconds: 60)
            try panel.frame([:])
            try settle(300)
            try expect(downs() == 6, "the touch after the stuck one did not reach the clone: \(reader.events)")
            try expect(daemon.isRunning, "gestured exited with \(daemon.exited ?? -1)")
        }
        if harness.failures.contains(name), let started { say("gestured log: \(tail(started.daemon.logPath, lines: 20))") }
        started?.panel.unplug()
        started?.daemon.stop()
    }

    /// The clock before and after one write: the kernel stamped its events in between.
    struct WriteSpan {
        var before: UInt64
        var after: UInt64
    }

    /// Whether the kernel's stamps of these touch-downs, wherever they lie within their
    /// writes, make intervals that each differ from the one before by at most the phantom
    /// rule's tolerance (`TouchHygiene.phantomPeriodTolerance` of the earlier interval).
    static func surelyOnOnePeriod(_ writes: [WriteSpan]) -> Bool {
        let shortest = zip(writes.dropFirst(), writes).map { Double($0.before) - Double($1.after) }
        let longest = zip(writes.dropFirst(), writes).map { Double($0.after) - Double($1.before) }
        for index in shortest.indices.dropFirst() {
            let (earlier, later) = (index - 1, index)
            let widest = max(longest[later] - shortest[earlier], longest[earlier] - shortest[later])
            if widest > shortest[earlier] * TouchHygiene.phantomPeriodTolerance { return false }
        }
        return true
    }
}
