import GestureCore
import GestureProtocol
import Testing

/// A touch touch hygiene holds at its touch-down (`shortest-contact`, `hold-duration`) whose
/// hold ends in the frame that lifts it: the daemon read the touch-down and the lift in one
/// batch, or its timer ran late (a busy host). Hygiene then shows the touch and ends it at
/// once; the pass-through filter must still give the app the tap, and a wake touch must
/// still wake, while a touch hygiene dropped never reaches the clone.
@Suite struct HeldTouchShownAtLiftTests {
    static let ms: UInt64 = 1_000
    static let shortest = TouchHygieneSettings(shortestContact: .milliseconds(1))

    /// A 60 ms tap at (500, 250) in slot 0, read with its lift.
    func tapReadWithItsLift(_ touch: TouchHygieneSettings = Self.shortest, wakeSwallow: Bool = false, displayOff: Bool = false)
        -> HygieneRig
    {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 60 * Self.ms)
        var rig = HygieneRig(hygieneScreen, touch, wakeSwallow: wakeSwallow)
        if displayOff { rig.filter.displayPower(.off) }
        rig.runAsOneRead(script.events, until: script.time + 1_000 * Self.ms)
        return rig
    }

    @Test func aTapShownOnlyAsItLiftsReachesTheCloneOnceAtItsPoint() {
        let rig = tapReadWithItsLift()
        #expect(rig.sink.reasons.isEmpty)
        #expect(rig.sink.gestures(.tap, .ended).map(\.tapCount) == [1])
        #expect(rig.cloneTrackingIDs == [1], "the app gets the tap as one touch")
        let reader = rig.reader
        let shown = reader.frames.compactMap { $0.slots[0] }
        #expect(shown.map(\.x) == [500])
        #expect(shown.map(\.y) == [250])
        #expect(reader.slots.isEmpty, "nothing stays down on the clone")
    }

    @Test func theSameTapWithTheTimerOnTimeGivesTheSameClone() {
        var script = EventScript()
        script.press(id: 1, x: 500, y: 250, duration: 60 * Self.ms)
        var onTime = HygieneRig(hygieneScreen, Self.shortest)
        onTime.run(script.events, until: script.time + 1_000 * Self.ms)
        let late = tapReadWithItsLift()
        #expect(onTime.cloneTrackingIDs == late.cloneTrackingIDs)
        #expect(onTime.reader.frames.compactMap { $0.slots[0]?.x } == late.reader.frames.compactMap { $0.slots[0]?.x })
    }

    @Test func aContactShorterThanTheLimitReadWithItsLiftStaysOffTheClone() {
        // Down, then up 0.5 ms later in a frame of its own: zero-duration, dropped.
        var script = EventScript()
        script.slot(0, id: 1, x: 500, y: 250)
        script.syn(SYN.report)
        script.time += 500
        script.slot(0, id: -1)
        script.syn(SYN.report)
        var rig = HygieneRig(hygieneScreen, Self.shortest)
        rig.runAsOneRead(script.events, until: script.time + 1_000 * Self.ms)
        #expect(rig.sink.reasons == [.zeroDuration])
        #expect(rig.cloneTrackingIDs.isEmpty, "a dropped touch is never revealed")
    }

    @Test func aTouchHoldDurationDropsReadWithItsLiftStaysOffTheClone() {
        // hold-duration 200 ms: a 60 ms tap is too short, whether its deadline was read or not.
        let rig = tapReadWithItsLift(TouchHygieneSettings(holdDuration: .milliseconds(200)))
        #expect(rig.sink.reasons == [.tooShort])
        #expect(rig.cloneTrackingIDs.isEmpty)
    }

    @Test func onADarkDisplayItIsTheWakeTouchAndStaysOffTheClone() {
        let rig = tapReadWithItsLift(wakeSwallow: true, displayOff: true)
        #expect(rig.filter.wakeTouchCount == 1, "the compositor is told: the screen wakes")
        #expect(rig.cloneTrackingIDs.isEmpty, "the wake touch presses nothing")
        #expect(rig.sink.gestures(.tap, .ended).count == 1, "subscribers still get the tap")
    }

    @Test func aSingleTouchScreenTapShownAsItLiftsReachesTheClone() {
        var script = EventScript()
        script.key(BTN.touch, true)
        script.abs(ABS.x, 1000)
        script.abs(ABS.y, 2000)
        script.report()
        script.time += 50 * Self.ms
        script.key(BTN.touch, false)
        script.syn(SYN.report)
        var rig = HygieneRig(Devices.singleTouch(), Self.shortest)
        rig.runAsOneRead(script.events, until: script.time + 1_000 * Self.ms)
        let touches = rig.clone.filter { $0.type == EV.key && $0.code == BTN.touch }.map(\.value)
        #expect(touches == [1, 0], "one press and one release on the clone")
    }
}
