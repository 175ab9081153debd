import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import SystemCalls

/// Wake-swallow against a kiosk's usual blanker, with the kiosk page in Chromium, on the
/// compositor's DRM backend (the guest's virtio GPU): under sway the guide's swayidle line
/// (sway's own `dpms`), under labwc raspi-config's (`wlopm`, through
/// wlr-output-power-management), each switches the output off; gestured has `wake-swallow`
/// and no idle timeout of its own, so only the kernel's DRM state can say the screen is
/// dark. The touch on the dark screen must reach no DOM event of the page (no touch, no
/// click, no key: the wake key is no key the page sees) and still bring the output back:
/// swayidle's `resume` runs because the compositor counted gestured's wake key as activity
/// (labwc drops the switch that sway would count). A socket subscriber gets it as a tap;
/// the next tap clicks where touched. Verdicts come from what the page, the subscriber,
/// sway (`get_outputs`) or the kernel (sysfs `dpms`, under labwc) report.
extension ChromiumRun {
    /// swayidle's timeout: long enough for the tap after the wake and its check on a busy
    /// host, short for the case's time.
    static let idleSeconds = 10
    /// The guide's swayidle line (docs/kiosk.md) with the case's timeout.
    static let swayidle =
        "exec swayidle -w timeout \(idleSeconds) 'swaymsg \"output * dpms off\"' resume 'swaymsg \"output * dpms on\"'"
    /// raspi-config's blanking line (`do_blanking`, written to the user's labwc autostart)
    /// with the case's timeout.
    static let raspiConfigBlanking = "swayidle -w timeout \(idleSeconds) 'wlopm --off \\*' resume 'wlopm --on \\*'"
    static let blankingConfig = """
        [daemon]
        log-level = "debug"
        idle-timeout = 0

        [[device]]
        match-name = "\(KioskCases.namePrefix) *"
        pass-through = true
        wake-swallow = true
        wake-guard = 300

        [[device]]
        match-name = "*"
        enabled = false
        """
    static let wakeSpot = Spot(0.35, 0.35)
    static let nextSpot = Spot(0.65, 0.65)

    /// Whether this stack runs the blanking case: sway or labwc on a real output.
    var blanks: Bool { (kind == .sway || kind.program == "labwc") && output == .drm }

    /// Whether each output is on: sway's `dpms` of every output; under labwc the kernel's
    /// connected connectors (lit: DPMS on and a CRTC).
    func outputsOn() throws(CaseFailure) -> [Bool] {
        guard kind == .sway else { return DrmConnector.connected().map(\.isLit) }
        return try compositor.swayQuery("get_outputs").compactMap { $0["dpms"] as? Bool }
    }

    /// Starts the stack's blanker, as the kiosk's configuration would: sway runs the guide's
    /// line; under labwc raspi-config's line runs in the session as the autostart would.
    func startBlanker() throws(CaseFailure) {
        if kind == .sway {
            try compositor.swayCommand(Self.swayidle)
        } else {
            blanker = try compositor.runInSession(Self.raspiConfigBlanking, name: "swayidle")
        }
    }

    /// Waits (reading the page meanwhile) until sway's outputs are all on, or all off.
    func awaitOutputs(on: Bool, _ what: String, timeout: Double) throws(CaseFailure) {
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while true {
            let states = try outputsOn()
            if !states.isEmpty && states.allSatisfy({ $0 == on }) { return }
            guard monotonicMicroseconds() < deadline else {
                throw CaseFailure("\(what) within \(Int(timeout)) s: sway reports dpms \(states); sysfs \(DrmConnector.describeAll())")
            }
            page.settle(milliseconds: 200, alongside: subscriber)
        }
    }

    /// `config`: gestured's configuration for it (the Raspberry Pi OS session: the guide's).
    func blankAndWake(config: String = ChromiumRun.blankingConfig) throws(CaseFailure) {
        try startDaemon(config: config)
        guard let subscriber else { throw CaseFailure("no subscriber") }
        // As a line of the kiosk's configuration would start it; only now, so that no other
        // case of the stack runs on a dark screen.
        try startBlanker()
        var attempt = 0
        while true {
            attempt += 1
            // No touch for swayidle's timeout: it switches the output off.
            try awaitOutputs(on: false, "swayidle did not switch the output off", timeout: Double(Self.idleSeconds) + 60)
            _ = subscriber.drain(quiet: 0.2)
            let mark = page.events.count
            let tapped = monotonicMicroseconds()
            try tap(Self.wakeSpot)
            // A liveness bound: under emulation on a busy host starting `wlopm` alone may take
            // a second; the time it took is noted.
            try awaitOutputs(on: true, "the output did not come back after the wake tap", timeout: 15)
            let woke = Double(monotonicMicroseconds() - tapped) / 1_000_000
            let wake = try subscriber.gestures(until: "the wake tap") { $0.gesture == .tap }.last!
            try expect(
                distance(wake.location, Self.wakeSpot) < locationTolerance,
                "the subscriber's tap is at \(describe(wake.location)), not the wake tap's (\(Self.wakeSpot.x), \(Self.wakeSpot.y))")
            // Past gestured's wake guard (300 ms from the display coming back on), the next
            // tap is the visitor's.
            page.settle(milliseconds: 800, alongside: subscriber)
            guard try outputsOn().allSatisfy({ $0 }) else {
                // The driver stalled past swayidle's timeout: the output is dark again.
                guard attempt < Harness.attempts else { throw CaseFailure("the output went off again in \(attempt) attempts") }
                say("RETRY \(name("wake-swallow against swayidle")): the output went off before the next tap")
                continue
            }
            let next = page.events.count
            try tap(Self.nextSpot)
            let clicked =
                (try? page.wait("the click of the tap after the wake", timeout: Self.patience, alongside: subscriber) {
                    page.inputs(since: next).contains { $0.name == "click" }
                }) != nil
            if !clicked, try !outputsOn().allSatisfy({ $0 }), attempt < Harness.attempts {
                say("RETRY \(name("wake-swallow against swayidle")): the output went off around the next tap")
                continue
            }
            quiesce()
            // Everything the page got since the wake tap must be the next tap's: an event
            // of the wake tap, however late, shows here.
            let beforeNext = page.events[mark..<next].filter(\.isInput)
            try expect(beforeNext.isEmpty, "the page got DOM events before the tap after the wake: \(describe(beforeNext))")
            try expect(clicked, "the tap after the wake did not click: \(describe(page.inputs(since: mark)))")
            let worst = try expectOneTap(page.inputs(since: mark), at: Self.nextSpot, "the wake tap and the tap after it")
            try expect(try outputsOn().allSatisfy { $0 }, "the output is off after the tap that followed the wake")
            let log = (try? String(contentsOfFile: daemon?.logPath ?? "", encoding: .utf8)) ?? ""
            try expect(
                !log.contains("forwarded a touch on the dark display") && !log.contains("did not wake"),
                "gestured failed safe instead of waking the compositor: \(tail(daemon?.logPath ?? "", lines: 5))")
            say(
                "  NOTE: \(prefix): the wake tap: no DOM event, a subscriber's tap at \(describe(wake.location)), the output on \(String(format: "%.2f", woke)) s after the tap (polled every 0.2 s); the next tap clicked \(worst) CSS px from the touch"
            )
            return
        }
    }
}
