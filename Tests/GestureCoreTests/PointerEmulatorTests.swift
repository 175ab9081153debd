import GestureCore
import GestureProtocol
import Testing

/// The pointer emulation's rules, on a virtual clock: touches in, mouse steps out.
@Suite("Pointer emulator")
struct PointerEmulatorTests {
    typealias F = PointerFixtures

    @Test func aTapIsOneLeftClickAtItsTouchDownPointGivenAtTheLift() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 50, 25)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(1, 51, 26)], at: F.ms(100)))  // 1.4 mm: within the slop
        #expect(log.steps.isEmpty, "nothing while the finger is down")
        log.take(emulator.frame([], at: F.ms(200)))
        #expect(log.steps == [.move(Point(x: 0.5, y: 0.5)), .press(.left), .release(.left)])
        #expect(emulator.nextDeadline == nil)
    }

    @Test func aLongPressIsOneRightClickAtTheDurationWhileTheFingerIsDown() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 20, 10)], at: F.ms(0)))
        #expect(emulator.nextDeadline == F.ms(500))
        log.take(emulator.advance(to: F.ms(499)))
        #expect(log.steps.isEmpty)
        log.take(emulator.advance(to: F.ms(500)))
        #expect(log.steps == [.move(Point(x: 0.2, y: 0.2)), .press(.right), .release(.right)])
        log.take(emulator.frame([F.touch(1, 40, 10)], at: F.ms(700)))  // moving afterwards does nothing
        log.take(emulator.frame([], at: F.ms(900)))
        #expect(log.count(.right) == 1 && log.count(.left) == 0 && log.steps.count == 3)
    }

    /// No timer fired (a loop that ran late): the first frame at or past the duration gives
    /// the long press first, even when that frame lifts the finger.
    @Test func aFramePastTheDurationGivesTheLongPressBeforeItsLift() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 20, 10)], at: F.ms(0)))
        log.take(emulator.frame([], at: F.ms(500)))
        #expect(log.count(.right) == 1 && log.count(.left) == 0)
        log.take(emulator.frame([F.touch(2, 20, 10)], at: F.ms(600)))
        log.take(emulator.frame([], at: F.ms(999)))
        #expect(log.count(.left) == 1, "a lift just before the duration is a tap")
    }

    @Test func aDragPressesTheLeftButtonAtItsTouchDownPointOnlyBeyondTheSlop() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 50, 25)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(1, 52.9, 25)], at: F.ms(20)))  // 2.9 mm
        #expect(log.steps.isEmpty)
        let beyond = F.touch(1, 53.1, 25)
        log.take(emulator.frame([beyond], at: F.ms(40)))  // 3.1 mm
        #expect(log.steps == [.move(Point(x: 0.5, y: 0.5)), .press(.left), .move(beyond.location)])
        #expect(emulator.nextDeadline == nil, "a drag is never a long press")
        log.take(emulator.frame([F.touch(1, 70, 25)], at: F.ms(900)))
        log.take(emulator.frame([F.touch(1, 70, 25)], at: F.ms(920)))
        #expect(log.steps.last == .move(Point(x: 0.7, y: 0.5)) && log.steps.count == 4, "a move only when the point changes")
        log.take(emulator.frame([], at: F.ms(940)))
        #expect(log.steps.last == .release(.left) && log.pressed.isEmpty && log.count(.left) == 1)
    }

    @Test func aOneFingerDragScrollsWhereTheRegionAsksForIt() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 50, 10, rules: F.scrollRules)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(1, 50, 20, rules: F.scrollRules)], at: F.ms(50)))  // 10 mm down
        log.take(emulator.frame([F.touch(1, 50, 30, rules: F.scrollRules)], at: F.ms(100)))
        log.take(emulator.frame([], at: F.ms(150)))
        #expect(log.presses.isEmpty)
        #expect(log.wheelVertical == 160, "20 mm down: content follows the finger, the wheel turns up")
        #expect(log.wheelHorizontal == 0)
    }

    @Test func aTwoFingerDragScrollsInHiResUnitsAndPressesNothing() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 40, 30)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(1, 40, 30), F.touch(2, 60, 30)], at: F.ms(30)))
        log.take(emulator.frame([F.touch(1, 39, 30), F.touch(2, 59, 30)], at: F.ms(60)))  // within the slop
        #expect(log.steps.isEmpty)
        for step in 1...10 {
            let x = 40 - Double(step)
            log.take(
                emulator.frame(
                    [F.touch(1, x, 30 - Double(step) / 2), F.touch(2, x + 20, 30 - Double(step) / 2)], at: F.ms(60 + UInt64(step) * 16)))
        }
        log.take(emulator.advance(to: F.ms(2000)))
        log.take(emulator.frame([], at: F.ms(2000)))
        #expect(log.presses.isEmpty)
        #expect(log.wheelHorizontal == 80, "10 mm left: the view scrolls right")
        #expect(log.wheelVertical == -40, "5 mm up: the view scrolls down")
        #expect(log.wheelSteps > 1, "smooth: many small turns, not one")
    }

    @Test func aTwoFingerTapAndExtraFingersDoNothing() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 40, 30), F.touch(2, 60, 30)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(2, 60, 30)], at: F.ms(80)))
        log.take(emulator.advance(to: F.ms(2000)))
        log.take(emulator.frame([], at: F.ms(2000)))
        #expect(log.steps.isEmpty, "a two-finger tap, and the finger left after it, click nothing")
        // A finger that lands during a drag does nothing; the drag goes on with the first.
        log.take(emulator.frame([F.touch(3, 10, 10)], at: F.ms(3000)))
        log.take(emulator.frame([F.touch(3, 20, 10)], at: F.ms(3020)))
        log.take(emulator.frame([F.touch(3, 25, 10), F.touch(4, 80, 40)], at: F.ms(3040)))
        log.take(emulator.frame([F.touch(4, 80, 40)], at: F.ms(3060)))
        log.take(emulator.frame([], at: F.ms(4000)))
        #expect(log.count(.left) == 1 && log.releases[.left] == 1 && log.pressed.isEmpty)
        #expect(log.count(.right) == 0)
    }

    @Test func cancelReleasesTheDragsButtonAndTheTouchesDownDoNothingMore() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 10, 10)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(1, 30, 10)], at: F.ms(20)))
        #expect(emulator.pressedButtons == [.left])
        let releases = emulator.cancel()
        #expect(releases == [.release(.left)])
        log.take(releases)
        log.take(emulator.frame([F.touch(1, 40, 10)], at: F.ms(40)))
        log.take(emulator.frame([], at: F.ms(60)))
        #expect(log.steps.count == 4 && log.pressed.isEmpty)
        // A cancelled pending touch never clicks, not even at its lift.
        log.take(emulator.frame([F.touch(2, 10, 10)], at: F.ms(100)))
        #expect(emulator.cancel().isEmpty)
        log.take(emulator.advance(to: F.ms(900)))
        log.take(emulator.frame([], at: F.ms(900)))
        #expect(log.steps.count == 4)
        // Then everything works again.
        log.take(emulator.frame([F.touch(3, 10, 10)], at: F.ms(1000)))
        log.take(emulator.frame([], at: F.ms(1050)))
        #expect(log.count(.left) == 2)
    }

    @Test func finishReleasesAndEndsEverything() {
        var emulator = PointerEmulator()
        var log = PointerLog()
        log.take(emulator.frame([F.touch(1, 10, 10)], at: F.ms(0)))
        log.take(emulator.frame([F.touch(1, 30, 10)], at: F.ms(20)))
        log.take(emulator.finish())
        #expect(log.pressed.isEmpty)
        log.take(emulator.frame([], at: F.ms(40)))
        log.take(emulator.frame([F.touch(2, 10, 10)], at: F.ms(60)))
        log.take(emulator.frame([], at: F.ms(80)))
        #expect(log.steps == [.move(Point(x: 0.1, y: 0.2)), .press(.left), .move(Point(x: 0.3, y: 0.2)), .release(.left)])
        #expect(emulator.finish().isEmpty)
    }

    /// The wheel's low-resolution detents go with the hi-res units once a whole detent has
    /// turned, the remainder carried.
    @Test func theWheelsDetentsFollowItsHiResUnits() {
        var frames = PointerClone.Frames()
        let time = F.ms(0)
        let first = frames.events([.wheel(vertical: 100, horizontal: -50)], at: time)
        #expect(
            first.filter { $0.type == EV.rel }.map { [$0.code, UInt16(bitPattern: Int16($0.value))] } == [
                [REL.wheelHiRes, 100], [REL.hwheelHiRes, UInt16(bitPattern: -50)],
            ])
        let second = frames.events([.wheel(vertical: 30, horizontal: -80)], at: time)
        #expect(second.contains(InputEvent(time: time, type: EV.rel, code: REL.wheel, value: 1)))
        #expect(second.contains(InputEvent(time: time, type: EV.rel, code: REL.hwheel, value: -1)))
        let click = frames.events([.move(Point(x: 1, y: 0)), .press(.right), .release(.right)], at: time)
        #expect(click.filter { $0.type == EV.syn }.count == 3, "one frame per step")
        #expect(click.contains(InputEvent(time: time, type: EV.abs, code: ABS.x, value: PointerClone.axisMaximum)))
    }

    /// udev's input_id calls the pointer a mouse (absolute axes and a mouse button, no
    /// touch, no stylus, not direct); gestured never reads it as a touch device.
    @Test func thePointerIsAnAbsoluteMouseNoTouchDevice() {
        let pointer = PointerClone.description(node: "/dev/input/event5", cloneName: String(repeating: "é", count: 60))
        #expect(pointer.kind == .other)
        #expect(pointer.has(EV.key, BTN.left) && pointer.has(EV.abs, ABS.x) && !pointer.has(EV.key, BTN.touch))
        #expect(pointer.properties.isEmpty)
        #expect(pointer.name.utf8.count <= DeviceSettings.longestCloneName && pointer.name.hasSuffix(PointerClone.nameSuffix))
        #expect(PointerClone.originalNode(ofPointerPhys: pointer.phys) == "/dev/input/event5")
        #expect(PassThroughClone.originalNode(ofClonePhys: pointer.phys) == nil)
        #expect(PassThroughClone.storeName(for: pointer).hasPrefix("gestured-clone-event5-"))
        let release = PassThroughClone.releaseFrame(for: pointer)
        #expect(Set(release.filter { $0.type == EV.key }.map(\.code)) == [BTN.left, BTN.right, BTN.middle])
        #expect(release.filter { $0.type == EV.key }.allSatisfy { $0.value == 0 })
    }
}
