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
    /// The phantom series' period: long enough that the emulated machine's scheduling
    /// (tens of ms at worst) stays inside the 2 % the rule allows.
    static let phantomPeriod = 1_500.0  // ms

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

        [[device]]
        match-name = "*"
        enabled = false
        """

    func run(_ harness: Harness) {
        let name =
            "touch hygiene: a bounce and a phantom series (from its fourth tap) never reach a reader of the clone; a stuck contact is lifted on the clone"
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

            // A bounce: a tap, and 20 ms after its lift a second one where it lifted.
            try panel.frame([0: Spot(0.2 + shift, 0.5)])
            pause(milliseconds: 60)
            let lift = monotonicMicroseconds()
            try panel.frame([:])
            pause(milliseconds: 20)
            try panel.frame([0: Spot(0.2 + shift, 0.5)])
            let bounceDown = monotonicMicroseconds()
            pause(milliseconds: 60)
            try panel.frame([:])
            if bounceDown - lift >= UInt64(Self.debounce * 1000) {
                throw StimulusMissed("the bounce came \((bounceDown - lift) / 1000) ms after the lift, past the debounce")
            }
            try settle(300)
            try expect(downs() == 1, "the clone showed \(downs()) touches for a tap and its bounce: \(reader.events)")

            // A phantom: five short taps at one point on a fixed period; the clone shows three.
            var downTimes: [UInt64] = []
            let first = monotonicMicroseconds() + 200_000
            for index in 0..<5 {
                pause(until: first + UInt64(Double(index) * Self.phantomPeriod * 1000))
                try panel.frame([0: Spot(0.7, 0.3 + shift)])
                downTimes.append(monotonicMicroseconds())
                pause(milliseconds: 40)
                try panel.frame([:])
                try settle(100)
            }
            let intervals = zip(downTimes.dropFirst(), downTimes).map { Double($0 - $1) }
            for (later, earlier) in zip(intervals.dropFirst(), intervals)
            where abs(later - earlier) > earlier * (HygieneCases.periodMargin) {
                throw StimulusMissed("the phantom taps came \(intervals.map { Int($0 / 1000) }) ms apart, not on one period")
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

    /// How far (a fraction) the driver's own intervals between phantom taps may differ
    /// before the stimulus counts as missed: under the rule's 2 %, for the kernel's
    /// timestamps to differ from the driver's by a few ms either way.
    static let periodMargin = 0.012
}
