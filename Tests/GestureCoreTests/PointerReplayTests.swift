import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// A thousand generated long presses, taps, drags and two-finger scrolls (seeded, so every
/// run replays the same) through the pass-through filter and the pointer emulator as the
/// daemon drives them (each frame, and the long press's deadline as its timer), holding the
/// zero-stray-click rule: every long press gives exactly one right click and no left press,
/// every tap exactly one left click, every button drag exactly one left press and release,
/// every scroll only the wheel; and after any cancel nothing is pressed. The durations lie
/// on both sides of the long-press duration (500 ms) and the points within and beyond the
/// tap's slop (3 mm, 30 units of the 100 × 50 mm panel).
@Suite("Pointer emulation: generated replay")
struct PointerReplayTests {
    /// The left half drags with the button, the right half scrolls (`pointer-drag`).
    static let policy = PassThroughPolicy(
        geometry: AppTouchFixtures.geometry,
        app: AppTouchPolicy(
            areas: [AppTouchPolicy.Area(rect: Rect(x: 0.5, y: 0, width: 0.5, height: 1), app: AppTouchSettings(pointerDrag: .scroll))],
            device: AppTouchSettings(input: .pointer)))

    enum Kind: CaseIterable {
        case tap, longPress, drag, twoFingerScroll
    }

    /// The daemon's side: every event to the filter, the pointer touches to the emulator
    /// at each `SYN_REPORT`, and the emulator's deadline as a timer that fires when no
    /// input comes first.
    struct Driver {
        var filter = PassThroughFilter(device: PassThroughDevices.slotted, policy: PointerReplayTests.policy)
        var emulator = PointerEmulator()
        var log = PointerLog()
        var rightPressTimes: [Timestamp] = []
        var cloneTouches = 0

        mutating func feed(_ events: [InputEvent]) {
            for event in events {
                timers(upTo: event.time)
                if case .emit(let frame) = filter.feed(event) {
                    cloneTouches += frame.filter { $0.type == EV.abs && $0.code == ABS.mtTrackingID && $0.value >= 0 }.count
                }
                if event.type == EV.syn && event.code == SYN.report {
                    take(emulator.frame(filter.pointerTouches, at: event.time), at: event.time)
                }
            }
        }

        /// The loop's timer: a deadline at or before `time` fires.
        mutating func timers(upTo time: Timestamp) {
            if let deadline = emulator.nextDeadline, deadline <= time { take(emulator.advance(to: deadline), at: deadline) }
        }

        mutating func take(_ steps: [PointerStep], at time: Timestamp) {
            if steps.contains(.press(.right)) { rightPressTimes.append(time) }
            log.take(steps)
        }
    }

    @Test func aThousandGesturesGiveExactlyTheirClicksAndNoStrayOne() {
        var random = SplitMix(state: 0x6d6f_7573_6521)
        var driver = Driver()
        var script = EventScript()
        var trackingID: Int32 = 0
        var counts: [Kind: Int] = [:]
        var cancels = 0
        for index in 0..<1000 {
            let kind = Kind.allCases[index % 4 == 0 ? 0 : Int.random(in: 0..<4, using: &random)]
            counts[kind, default: 0] += 1
            let before = driver.log
            let rightsBefore = driver.rightPressTimes.count
            script.time += UInt64.random(in: 20_000...400_000, using: &random)
            let start = (x: Int32.random(in: 60...940, using: &random), y: Int32.random(in: 60...440, using: &random))
            let scrolls = start.x >= 500
            let downAt = script.time
            /// Cancel (a reload, a resynchronisation) at a random frame of one gesture in twenty.
            let cancelAtFrame = Int.random(in: 0..<20, using: &random) == 0 ? Int.random(in: 1...6, using: &random) : nil
            var frameIndex = 0
            var cancelled = false
            func frame(_ changes: [SlotChange], at time: UInt64) {
                script.time = time
                script.events = []
                script.frame(changes)
                driver.feed(script.events)
                frameIndex += 1
                if frameIndex == cancelAtFrame {
                    driver.take(driver.emulator.cancel(), at: Timestamp(microseconds: time))
                    #expect(driver.log.pressed.isEmpty, "nothing pressed after a cancel")
                    cancelled = true
                    cancels += 1
                }
            }
            func jitter() -> Int32 { Int32.random(in: -20...20, using: &random) }  // at most 28.3 units: within the slop
            trackingID += 1
            let id = trackingID
            switch kind {
            case .tap, .longPress:
                let duration: UInt64 =
                    kind == .tap
                    ? UInt64.random(in: 5_000...499_999, using: &random) : UInt64.random(in: 500_000...1_500_000, using: &random)
                let sparse = Bool.random(using: &random)  // a panel that sends nothing while the finger rests
                frame([.slot(0, id: id, x: start.x, y: start.y)], at: downAt)
                var time = downAt + UInt64.random(in: 4_000...25_000, using: &random)
                while !sparse && time < downAt + duration {
                    frame([.slot(0, x: start.x + jitter(), y: start.y + jitter())], at: time)
                    time += UInt64.random(in: 4_000...25_000, using: &random)
                }
                frame([.slot(0, id: -1)], at: downAt + duration)
            case .drag:
                // Within the slop for a while (less than the duration), then beyond it.
                let rest = UInt64.random(in: 0...470_000, using: &random)
                frame([.slot(0, id: id, x: start.x, y: start.y)], at: downAt)
                var time = downAt + 10_000
                while time < downAt + rest {
                    frame([.slot(0, x: start.x + jitter(), y: start.y + jitter())], at: time)
                    time += 10_000
                }
                // A direction of at least one unit a step, away from the start.
                var direction = (x: 0.0, y: 0.0)
                while direction.x * direction.x + direction.y * direction.y < 0.25 {
                    direction = (Double.random(in: -1...1, using: &random), Double.random(in: -1...1, using: &random))
                }
                let norm = (direction.x * direction.x + direction.y * direction.y).squareRoot()
                let steps = Int.random(in: 3...60, using: &random)
                for step in 1...steps {
                    let distance = 35 + Double(step) * 6
                    frame(
                        [
                            .slot(
                                0, x: clampX(start.x + Int32(direction.x / norm * distance)),
                                y: clampY(start.y + Int32(direction.y / norm * distance)))
                        ],
                        at: time)
                    time += 16_000
                }
                frame([.slot(0, id: -1)], at: time)
            case .twoFingerScroll:
                trackingID += 1
                let second = (x: clampX(start.x + 150), y: start.y)
                frame([.slot(0, id: id, x: start.x, y: start.y), .slot(1, id: trackingID, x: second.x, y: second.y)], at: downAt)
                var time = downAt + 16_000
                let dy = Int32.random(in: -6...6, using: &random)
                for step in 1...Int32.random(in: 8...40, using: &random) {
                    frame([.slot(0, y: clampY(start.y + dy * step)), .slot(1, y: clampY(second.y + dy * step))], at: time)
                    time += 16_000
                }
                frame([.slot(0, id: -1), .slot(1, id: -1)], at: time)
            }
            driver.timers(upTo: Timestamp(microseconds: script.time + 2_000_000))
            #expect(driver.log.pressed.isEmpty, "gesture \(index) (\(kind)) left \(driver.log.pressed) pressed")
            let left = driver.log.count(.left) - before.count(.left)
            let right = driver.log.count(.right) - before.count(.right)
            let middle = driver.log.count(.middle) - before.count(.middle)
            #expect(middle == 0)
            if cancelled {
                #expect(left + right <= 1, "gesture \(index) (\(kind)), cancelled: at most its own click")
                continue
            }
            switch kind {
            case .tap:
                #expect(left == 1 && right == 0, "tap \(index): \(left) left, \(right) right")
                #expect(driver.pressedAtTouchDown(start), "tap \(index) clicks at its touch-down point")
            case .longPress:
                #expect(right == 1 && left == 0, "long press \(index): \(right) right, \(left) left")
                #expect(driver.rightPressTimes.count == rightsBefore + 1)
                #expect(driver.rightPressTimes.last == Timestamp(microseconds: downAt + 500_000), "long press \(index): at the duration")
                #expect(driver.pressedAtTouchDown(start))
            case .drag where scrolls:
                #expect(left == 0 && right == 0, "scroll drag \(index): no button")
                #expect(driver.log.wheelSteps > before.wheelSteps, "scroll drag \(index) turns the wheel")
            case .drag:
                #expect(left == 1 && right == 0 && driver.log.releases[.left] == driver.log.count(.left), "drag \(index)")
                #expect(driver.pressedAtTouchDown(start), "drag \(index) presses at its touch-down point")
            case .twoFingerScroll:
                #expect(left == 0 && right == 0, "two-finger scroll \(index): no button")
            }
        }
        #expect(driver.cloneTouches == 0, "no touch of a pointer device reaches the touch clone")
        #expect(counts.values.allSatisfy { $0 >= 150 } && cancels >= 20, "every kind and cancels are exercised: \(counts), \(cancels)")
    }

    static func clamp(_ value: Int32, _ maximum: Int32) -> Int32 { max(0, min(maximum, value)) }
}

private func clampX(_ value: Int32) -> Int32 { PointerReplayTests.clamp(value, 1000) }
private func clampY(_ value: Int32) -> Int32 { PointerReplayTests.clamp(value, 500) }

extension PointerReplayTests.Driver {
    /// Whether the last press was at the touch-down point `point` (device units; the
    /// normalised screen point within a millionth: the pointer's axis has 32768 values).
    func pressedAtTouchDown(_ point: (x: Int32, y: Int32)) -> Bool {
        guard let pressed = log.pressPoints.last?.1 else { return false }
        return abs(pressed.x - Double(point.x) / 1000) < 1e-6 && abs(pressed.y - Double(point.y) / 500) < 1e-6
    }
}
