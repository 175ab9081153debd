import GestureProtocol
import Testing

@testable import GestureCore

/// Multi-finger gestures as hands make them: fingers touch down and lift 10–30 ms apart,
/// never in one frame. On the virtual clock, on the harness's 200 × 100 mm surface, frames
/// every 8 ms (125 Hz).
@Suite("multi-finger gestures with staggered fingers")
struct MultiFingerTests {
    /// Fingers side by side 12 mm apart (vertically), centred at `(x, 0.5)`.
    static func row(_ count: Int, x: Double) -> [Point] {
        (0..<count).map { Point(x: x, y: 0.5 + (Double($0) - Double(count - 1) / 2) * 0.12) }
    }

    /// `count` fingers touch down `downStagger` ms apart, move right together at `speed`
    /// mm/s for `duration` ms, and lift `liftStagger` ms apart (the first one first), each
    /// still moving until it lifts. Returns the harness.
    static func parallelFlick(
        fingers count: Int, speed: Double, duration: Double = 120, downStagger: Double = 15, liftStagger: Double = 20,
        settings: GestureSettings = GestureSettings()
    ) -> GestureHarness {
        parallelFlick(
            from: row(count, x: 0.3), heading: (1, 0), speed: speed, duration: duration, downStagger: downStagger,
            liftStagger: liftStagger, settings: settings)
    }

    /// Fingers at `start` touch down `downStagger` ms apart, move together along `heading`
    /// (a unit vector in millimetres, y down) at `speed` mm/s for `duration` ms, and lift
    /// `liftStagger` ms apart in touch-down order, each still moving until it lifts.
    static func parallelFlick(
        from start: [Point], heading: (x: Double, y: Double), speed: Double, duration: Double = 120, downStagger: Double = 15,
        liftStagger: Double = 20, settings: GestureSettings = GestureSettings()
    ) -> GestureHarness {
        var h = GestureHarness(settings: settings)
        let count = start.count
        let interval = 8.0
        // Normalised units per ms along each axis.
        let perMillisecond = Point(
            x: speed * heading.x / 1000 / GestureHarness.surface.width, y: speed * heading.y / 1000 / GestureHarness.surface.height)
        var down = 0
        var lifted = 0
        let moveStart = Double(count - 1) * downStagger + interval
        let liftStart = moveStart + duration
        var time = 0.0
        while lifted < count {
            var changes: [GestureHarness.Change] = []
            while down < count && Double(down) * downStagger <= time {
                changes.append(.down(UInt32(down + 1), start[down].x, start[down].y))
                down += 1
            }
            let travel = perMillisecond * max(0, time - moveStart)
            for finger in lifted..<down
            where !changes.contains(where: { if case .down(let id, _, _) = $0 { id == finger + 1 } else { false } }) {
                if time >= liftStart + Double(finger) * liftStagger {
                    changes.append(.up(UInt32(finger + 1)))
                } else {
                    changes.append(.move(UInt32(finger + 1), start[finger].x + travel.x, start[finger].y + travel.y))
                }
            }
            h.frame(at: GestureHarness.microseconds(time), changes)
            lifted = changes.reduce(lifted) { count, change in if case .up = change { count + 1 } else { count } }
            time += interval
        }
        return h
    }

    // MARK: Finger counts

    @Test("a swipe and its drag report every finger however the lifts are staggered", arguments: [2, 3, 4])
    func staggeredSwipeCountsEveryFinger(fingers: Int) {
        for stagger in [10.0, 14, 20, 28, 30] {
            let h = Self.parallelFlick(fingers: fingers, speed: 300, liftStagger: stagger)
            let swipe = h.events(.swipe)
            #expect(swipe.count == 1 && swipe.first?.fingers == fingers, "lifts \(stagger) ms apart")
            #expect(h.events(.drag).last?.phase == .ended && h.events(.drag).last?.fingers == fingers, "lifts \(stagger) ms apart")
            #expect(h.events(.drag).first?.fingers == fingers, "the drag began once all \(fingers) were down")
        }
    }

    @Test("fingers that land one after the other on a hand already moving count at the end", arguments: [10.0, 20, 30])
    func fingersLandingWhileTheHandMoves(stagger: Double) {
        // Finger 1 lands and moves right at 400 mm/s at once; fingers 2 and 3 land `stagger`
        // ms apart where the hand then is, and all three lift `stagger` ms apart.
        var h = GestureHarness()
        let rows = Self.row(3, x: 0.3)
        let perMillisecond = 400.0 / 1000 / GestureHarness.surface.width
        var time = 0.0
        var down = 0
        while time <= 160 + 2 * stagger {
            var changes: [GestureHarness.Change] = []
            let x = 0.3 + time * perMillisecond
            for finger in 0..<3 {
                let id = UInt32(finger + 1)
                if finger == down && time >= Double(finger) * stagger {
                    changes.append(.down(id, x, rows[finger].y))
                    down += 1
                } else if finger < down && time >= 120 + Double(finger) * stagger {
                    if time < 120 + Double(finger) * stagger + 8 { changes.append(.up(id)) }
                } else if finger < down {
                    changes.append(.move(id, x, rows[finger].y))
                }
            }
            h.frame(at: GestureHarness.microseconds(time), changes)
            time += 8
        }
        #expect(h.events(.drag).first?.phase == .began)
        #expect(h.events(.drag).last?.phase == .ended && h.events(.drag).last?.fingers == 3, "\(h.summary)")
        #expect(h.events(.swipe).count == 1 && h.events(.swipe).first?.fingers == 3, "\(h.summary)")
        #expect(h.events(.pinch).isEmpty && h.events(.rotate).isEmpty && h.events(.tap).isEmpty)
    }

    @Test func aFingerLiftedLongBeforeTheOthersLeftTheGesture() {
        var h = GestureHarness()
        let start = Self.row(3, x: 0.3)
        h.frame(0, .down(1, start[0].x, start[0].y), .down(2, start[1].x, start[1].y), .down(3, start[2].x, start[2].y))
        var time = 0.0
        var x = 0.3
        // Three fingers drag; one lifts, the other two drag on for 300 ms, then lift 20 ms apart.
        for _ in 0..<10 {
            time += 8
            x += 0.01
            h.frame(time, .move(1, x, start[0].y), .move(2, x, start[1].y), .move(3, x, start[2].y))
        }
        time += 8
        h.frame(time, .up(3))
        let trailing = GestureSettings().tap.fingerWindow
        for _ in 0..<Int(300 / 8) {
            time += 8
            x += 0.01
            h.frame(time, .move(1, x, start[0].y), .move(2, x, start[1].y))
        }
        #expect(300 > trailing)
        h.frame(time + 8, .up(1))
        h.frame(time + 28, .up(2))
        #expect(h.events(.drag).first?.fingers == 3)
        #expect(h.events(.drag).last?.fingers == 2)
        #expect(h.events(.swipe).first?.fingers == 2)
    }

    @Test func aLiftTrailingByMoreThanTheFingerWindowDoesNotCount() {
        var settings = GestureSettings()
        settings.tap.fingerWindow = 25
        let within = Self.parallelFlick(fingers: 2, speed: 300, liftStagger: 25, settings: settings)
        #expect(within.events(.swipe).first?.fingers == 2)
        let beyond = Self.parallelFlick(fingers: 2, speed: 300, liftStagger: 40, settings: settings)
        #expect(beyond.events(.swipe).first?.fingers == 1)
    }

    @Test func aTrackingIdSplitIsNoSecondFinger() {
        // The device gives a moving finger a new id mid-stroke: the old contact lifts and
        // the new one touches down in the same frame, where it was.
        var h = GestureHarness()
        h.frame(0, .down(1, 0.3, 0.5))
        h.glide(1, from: Point(x: 0.3, y: 0.5), to: Point(x: 0.4, y: 0.5), startingAt: 0, steps: 5, interval: 8)
        h.frame(48, .up(1), .down(2, 0.4, 0.5))
        h.glide(2, from: Point(x: 0.4, y: 0.5), to: Point(x: 0.5, y: 0.5), startingAt: 48, steps: 5, interval: 8)
        h.frame(96, .up(2))
        #expect(h.events(.drag).last?.phase == .ended && h.events(.drag).last?.fingers == 1)
        #expect(h.events(.swipe).first?.fingers == 1)
    }

    @Test("a multi-finger tap with staggered touch-downs and lifts counts every finger", arguments: [2, 3, 4])
    func staggeredTap(fingers: Int) {
        var h = GestureHarness()
        let points = Self.row(fingers, x: 0.5)
        for finger in 0..<fingers {
            h.frame(Double(finger) * 22, .down(UInt32(finger + 1), points[finger].x, points[finger].y))
        }
        for finger in 0..<fingers {
            h.frame(150 + Double(finger) * 18, .up(UInt32(finger + 1)))
        }
        #expect(h.events(.tap).count == 1 && h.events(.tap).first?.fingers == fingers)
        #expect(h.events(.pinch).isEmpty && h.events(.rotate).isEmpty && h.events(.drag).isEmpty)
    }

    // MARK: No phantom turns

    @Test("parallel flicks report no rotate and no pinch at any speed", arguments: [2, 3])
    func parallelFlicksNeverTurnOrPinch(fingers: Int) {
        for speed in [100.0, 500, 750, 1500, 3000, 10_000] {
            for stagger in [0.0, 10, 20, 30] {
                let h = Self.parallelFlick(fingers: fingers, speed: speed, liftStagger: stagger)
                #expect(h.events(.rotate).isEmpty, "\(fingers) fingers, \(speed) mm/s, lifts \(stagger) ms apart")
                #expect(h.events(.pinch).isEmpty, "\(fingers) fingers, \(speed) mm/s, lifts \(stagger) ms apart")
                #expect(h.events(.swipe).count == 1)
            }
        }
    }

    /// Fingers side by side along their stroke: a lifting finger left behind at its last
    /// position would read as the spread shrinking or growing (a pinch), and a finger
    /// touching down as a jump.
    @Test("fingers in a row along their stroke report no pinch or rotate at any speed", arguments: [2, 3])
    func flicksAlongTheRowNeverPinch(fingers: Int) {
        let headings: [(x: Double, y: Double)] = [(1, 0), (-1, 0), (0.6, 0.8)]
        let start = (0..<fingers).map { Point(x: 0.45 + Double($0) * 0.06, y: 0.5) }  // 12 mm apart
        for speed in [500.0, 1500, 3000, 10_000] {
            for heading in headings {
                for (downStagger, liftStagger) in [(10.0, 30.0), (30, 10), (20, 20)] {
                    let h = Self.parallelFlick(
                        from: start, heading: heading, speed: speed, downStagger: downStagger, liftStagger: liftStagger)
                    let label =
                        "\(fingers) fingers at \(speed) mm/s along \(heading), downs \(downStagger) ms and lifts \(liftStagger) ms apart"
                    #expect(h.events(.pinch).isEmpty && h.events(.rotate).isEmpty, "\(label)")
                    #expect(h.events(.swipe).count == 1 && h.events(.swipe).first?.fingers == fingers, "\(label)")
                }
            }
        }
    }

    @Test func aFingerJoiningOrLiftingMidMoveTakesNoPartInThatFrame() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.3, 0.4), .down(2, 0.3, 0.6))
        // Both move right 2 mm per frame; finger 3 joins in the middle of the move.
        h.frame(8, .move(1, 0.31, 0.4), .move(2, 0.31, 0.6))
        h.frame(16, .move(1, 0.32, 0.4), .move(2, 0.32, 0.6), .down(3, 0.2, 0.5))
        h.frame(24, .move(1, 0.33, 0.4), .move(2, 0.33, 0.6), .move(3, 0.21, 0.5))
        h.frame(32, .move(1, 0.34, 0.4), .move(2, 0.34, 0.6), .move(3, 0.22, 0.5))
        h.frame(40, .up(3), .move(1, 0.35, 0.4), .move(2, 0.35, 0.6))
        h.frame(48, .move(1, 0.36, 0.4), .move(2, 0.36, 0.6))
        h.frame(56, .up(1), .up(2))
        #expect(h.events(.rotate).isEmpty && h.events(.pinch).isEmpty)
        let end = try! #require(h.events(.drag).last?.drag)
        #expect(abs(end.translation.x - 0.06) < 1e-9 && abs(end.translation.y) < 1e-9, "only the fingers' common movement")
    }

    @Test func aPinchEndsWithTheScaleOfItsLastFrameWithBothFingersDown() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))  // 20 mm apart
        for step in 1...10 {
            let d = 0.05 + Double(step) * 0.005
            h.frame(Double(step) * 8, .move(1, 0.5 - d, 0.5), .move(2, 0.5 + d, 0.5))
        }
        // Finger 1 lifts while finger 2 keeps spreading fast: that frame is not the pinch's.
        h.frame(88, .up(1), .move(2, 0.62, 0.5))
        h.frame(108, .up(2))
        let pinch = h.events(.pinch)
        let lastChanged = try! #require(pinch.last { $0.phase == .changed })
        #expect(pinch.last?.phase == .ended)
        #expect(pinch.last?.scale == lastChanged.scale)
        #expect(pinch.last?.time == 88_000)
    }

    // MARK: Velocity

    @Test func pinchVelocityIsScalePerSecond() {
        var h = GestureHarness()
        // Fingers 20 mm apart spreading by 1 mm (both sides) every 10 ms: 100 mm/s of radius
        // on 10 mm: 10 per second of the touch-down's spread.
        h.frame(0, .down(1, 0.45, 0.5), .down(2, 0.55, 0.5))
        for step in 1...20 {
            let radius = 10 + Double(step) * 1
            h.frame(Double(step) * 10, .move(1, 0.5 - radius / 200, 0.5), .move(2, 0.5 + radius / 200, 0.5))
        }
        let pinch = h.events(.pinch)
        let began = try! #require(pinch.first)
        #expect(began.phase == .began && began.scale == 1)
        // Began at radius 11 (10 %, 1 mm); the scale since is radius / 11, growing 100/11 per s.
        let last = try! #require(pinch.last)
        #expect(abs(try! #require(last.transformVelocity) - 100.0 / 11) < 1e-6)
        // Resting 50 ms before the lift: nothing thrown.
        h.frame(250, .up(1), .up(2))
        #expect(h.events(.pinch).last?.phase == .ended && h.events(.pinch).last?.transformVelocity == 0)
    }

    @Test func rotateVelocityIsDegreesPerSecond() {
        var h = GestureHarness()
        let (a0, b0) = TransformTests.fingers(radius: 15, degrees: 0)
        h.frame(0, .down(1, a0.x, a0.y), .down(2, b0.x, b0.y))
        for step in 1...20 {
            let (a, b) = TransformTests.fingers(radius: 15, degrees: Double(step) * 1.5)  // 150°/s clockwise
            h.frame(Double(step) * 10, .move(1, a.x, a.y), .move(2, b.x, b.y))
        }
        h.frame(210, .up(1), .up(2))
        let rotate = h.events(.rotate)
        #expect(rotate.first?.phase == .began && rotate.first?.rotation == 0)
        #expect(rotate.last?.phase == .ended)
        let velocity = try! #require(rotate.last?.transformVelocity)
        #expect(abs(velocity - 150) < 1e-3, "\(velocity)")
        #expect(abs(try! #require(rotate.last?.rotation) - (30 - 6)) < 1e-6, "began at 6°")
    }

    @Test func pinchAndRotateVelocityIsZeroAtBeganAndCancelled() {
        // Finger 2 lands 20 ms after finger 1; they spread and turn together; a palm then
        // cancels finger 1.
        var h = GestureHarness()
        let (a0, b0) = TransformTests.fingers(radius: 10, degrees: 0)
        h.frame(0, .down(1, a0.x, a0.y))
        h.frame(20, .down(2, b0.x, b0.y))
        for step in 1...12 {
            let (a, b) = TransformTests.fingers(radius: 10 + Double(step), degrees: Double(step) * 1.5)
            h.frame(20 + Double(step) * 8, .move(1, a.x, a.y), .move(2, b.x, b.y))
        }
        h.frame(124, .cancel(1))
        h.frame(144, .up(2))
        for kind in [GestureKind.pinch, .rotate] {
            let events = h.events(kind)
            #expect(events.first?.phase == .began && events.first?.transformVelocity == 0, "\(kind)")
            let changed = events.filter { $0.phase == .changed }
            #expect(!changed.isEmpty && changed.allSatisfy { ($0.transformVelocity ?? 0) > 0 }, "\(kind): spreading, turning clockwise")
            #expect(events.last?.phase == .cancelled && events.last?.transformVelocity == 0, "\(kind)")
        }
    }

    @Test func theFirstChangedAlreadyCarriesTheVelocityOfTheFramesBeforeIt() {
        // Finger 2 lands 20 ms after finger 1; the spread then grows by 1 mm of radius every
        // 10 ms from the first frame both are down: the pinch begins in that frame (10 %,
        // 1 mm), and the first `changed` has the slope of three samples on one line, the
        // first at the frame before the change (scale 1 there), 10 / s over the 1.1 of `began`.
        var h = GestureHarness()
        h.frame(0, .down(1, 0.45, 0.5))
        h.frame(20, .down(2, 0.55, 0.5))
        for step in 1...2 {
            let radius = 10 + Double(step)
            h.frame(20 + Double(step) * 10, .move(1, 0.5 - radius / 200, 0.5), .move(2, 0.5 + radius / 200, 0.5))
        }
        let pinch = h.events(.pinch)
        #expect(pinch.map(\.phase) == [.began, .changed])
        #expect(pinch.first?.time == 30_000)
        let velocity = try! #require(pinch.last?.transformVelocity)
        #expect(abs(velocity - 10 / 1.1) < 1e-9, "\(velocity)")
    }

    @Test func aPinchsVelocityAtItsEndIsItsLastFramesWhenTheFingersLiftStaggered() {
        // Spreading at a steady 100 mm/s of radius (both fingers), then finger 2 lifts 20 ms
        // after finger 1 while still moving: `ended` comes with finger 1's lift and throws.
        var h = GestureHarness()
        h.frame(0, .down(1, 0.45, 0.5))
        h.frame(15, .down(2, 0.55, 0.5))
        for step in 1...15 {
            let radius = 10 + Double(step) * 0.8
            h.frame(15 + Double(step) * 8, .move(1, 0.5 - radius / 200, 0.5), .move(2, 0.5 + radius / 200, 0.5))
        }
        h.frame(143, .up(1), .move(2, 0.5 + 23 / 200, 0.5))
        h.frame(163, .up(2))
        let pinch = h.events(.pinch)
        let ended = try! #require(pinch.last)
        let began = try! #require(pinch.first)
        #expect(began.phase == .began && ended.phase == .ended && ended.time == 143_000)
        // The spread (the mean radius) changed by 8 % but only 0.8 mm at radius 10.8: the
        // pinch began at 11.6. The scale since grows by 0.8 / 11.6 per 8 ms.
        let velocity = try! #require(ended.transformVelocity)
        #expect(abs(velocity - 100 / 11.6) < 1e-6, "\(velocity)")
        #expect(ended.scale == pinch.last { $0.phase == .changed }?.scale)
    }

    // MARK: Thresholds and continuity

    @Test func pinchBeginsAtItsScaleChangeWithoutAJump() {
        // Fingers 40 mm apart (radius 20): 4 % is not a pinch, 5 % is (spread change 1 mm too).
        func spread(to radius: Double, settings: GestureSettings = GestureSettings()) -> GestureHarness {
            var h = GestureHarness(settings: settings)
            h.frame(0, .down(1, 0.4, 0.5), .down(2, 0.6, 0.5))
            for step in 1...10 {
                let r = 20 + (radius - 20) * Double(step) / 10
                h.frame(Double(step) * 10, .move(1, 0.5 - r / 200, 0.5), .move(2, 0.5 + r / 200, 0.5))
            }
            return h
        }
        #expect(spread(to: 20.8).events(.pinch).isEmpty)
        let pinching = spread(to: 22)
        let pinch = pinching.events(.pinch)
        #expect(pinch.first?.phase == .began && pinch.first?.scale == 1)
        // No jump: each value differs from the one before by one frame's change at most.
        let scales = pinch.compactMap(\.scale)
        for (before, after) in zip(scales, scales.dropFirst()) { #expect(abs(after - before) < 0.011) }
        #expect(abs(try! #require(scales.last) - 22 / 21) < 1e-9)
        var strict = GestureSettings()
        strict.pinch.minimumScaleChange = 0.2
        #expect(spread(to: 22, settings: strict).events(.pinch).isEmpty, "per-region threshold")
    }

    @Test func fingersCloseTogetherNeedTheMinimumSpreadChangeToo() {
        // Fingers 6 mm apart: 0.8 mm of jitter is 13 % of the spread, but no pinch.
        var h = GestureHarness()
        h.frame(0, .down(1, 0.485, 0.5), .down(2, 0.515, 0.5))
        h.frame(10, .move(1, 0.483, 0.5), .move(2, 0.517, 0.5))
        h.frame(20, .move(1, 0.483, 0.5), .move(2, 0.517, 0.5))
        h.frame(30, .up(1), .up(2))
        #expect(h.events(.pinch).isEmpty)
        #expect(h.events(.tap).first?.fingers == 2)
    }

    @Test func rotateBeginsAtItsAngleWithoutAJump() {
        func turn(by degrees: Double, settings: GestureSettings = GestureSettings()) -> GestureHarness {
            var h = GestureHarness(settings: settings)
            let (a0, b0) = TransformTests.fingers(radius: 20, degrees: 0)
            h.frame(0, .down(1, a0.x, a0.y), .down(2, b0.x, b0.y))
            for step in 1...10 {
                let (a, b) = TransformTests.fingers(radius: 20, degrees: degrees * Double(step) / 10)
                h.frame(Double(step) * 10, .move(1, a.x, a.y), .move(2, b.x, b.y))
            }
            return h
        }
        #expect(turn(by: 4.5).events(.rotate).isEmpty)
        let rotate = turn(by: 8).events(.rotate)
        #expect(rotate.first?.phase == .began && rotate.first?.rotation == 0)
        let angles = rotate.compactMap(\.rotation)
        for (before, after) in zip(angles, angles.dropFirst()) { #expect(abs(after - before) < 0.81) }
        #expect(abs(try! #require(angles.last) - (8 - 5.6)) < 1e-6, "began at the 7th step, 5.6°")
        var strict = GestureSettings()
        strict.rotate.minimumAngle = 10
        #expect(turn(by: 8, settings: strict).events(.rotate).isEmpty, "per-region threshold")
    }

    // MARK: Edge pan

    @Test func aSlowDragFromTheEdgeCarriesItsEdgeOnEveryEvent() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.02))  // 2 mm from the top edge
        h.glide(1, from: Point(x: 0.5, y: 0.02), to: Point(x: 0.5, y: 0.4), startingAt: 0, steps: 40, interval: 20)
        h.frame(900, .up(1))  // rested: no swipe
        let drag = h.events(.drag)
        #expect(drag.count > 2 && h.events(.swipe).isEmpty)
        #expect(drag.allSatisfy { $0.drag?.edge == .top })
        var middle = GestureHarness()
        middle.frame(0, .down(1, 0.5, 0.5))
        middle.glide(1, from: Point(x: 0.5, y: 0.5), to: Point(x: 0.5, y: 0.8), startingAt: 0, steps: 20, interval: 20)
        middle.frame(500, .up(1))
        #expect(!middle.events(.drag).isEmpty && middle.events(.drag).allSatisfy { $0.drag?.edge == nil })
    }

    @Test func aFastSwipeFromTheEdgeCarriesItOnTheDragAndTheSwipe() {
        var h = GestureHarness()
        h.frame(0, .down(1, 0.99, 0.5))  // 2 mm from the right edge
        h.glide(1, from: Point(x: 0.99, y: 0.5), to: Point(x: 0.7, y: 0.5), startingAt: 0, steps: 8, interval: 8)
        h.frame(72, .up(1))
        #expect(h.events(.drag).allSatisfy { $0.drag?.edge == .right })
        guard case .swipe(.left, .right, let values)? = h.events(.swipe).first?.details else {
            Issue.record("no swipe left from the right edge: \(h.summary)")
            return
        }
        #expect(values.edge == .right)
    }

    // MARK: Slow taps

    @Test func withoutLongPressAPressHeldLongStillTaps() {
        var settings = GestureSettings()
        settings.enabled.remove(.longPress)
        var h = GestureHarness(settings: settings)
        h.frame(0, .down(1, 0.5, 0.5))
        h.advance(to: 3000)
        h.frame(3000, .move(1, 0.505, 0.5))  // 1 mm: within the slop
        h.frame(3500, .up(1))
        #expect(h.events(.tap).count == 1 && h.events(.tap).first?.time == 3_500_000)
        // Beyond the slop it is still no tap.
        var moved = GestureHarness(settings: settings)
        moved.frame(0, .down(1, 0.5, 0.5))
        moved.frame(2000, .move(1, 0.52, 0.5))
        moved.frame(2500, .up(1))
        #expect(moved.events(.tap).isEmpty)
    }

    @Test func aSlowTwoFingerTapWithoutLongPressCountsBothFingers() {
        var settings = GestureSettings()
        settings.enabled.remove(.longPress)
        var h = GestureHarness(settings: settings)
        h.frame(0, .down(1, 0.45, 0.5))
        h.frame(25, .down(2, 0.55, 0.5))
        h.frame(1500, .up(2))
        h.frame(1520, .up(1))
        #expect(h.events(.tap).first?.fingers == 2)
    }

    @Test func whereALongPressIsEnabledTapAndLongPressStayExclusive() {
        // Top level: long press on.
        var h = GestureHarness()
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(800, .up(1))
        #expect(h.events(.tap).isEmpty && h.events(.longPress).count == 2)
        // A button with only press and tap on a page that long-presses: the page's long
        // press ends the button's tap.
        var button = GestureSettings()
        button.enabled = [.press, .tap]
        let configuration = EngineConfiguration(regions: [
            Region(name: "button", rect: Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2), settings: button),
            Region(name: "page", rect: .unit),
        ])
        var nested = GestureHarness(configuration)
        nested.frame(0, .down(1, 0.5, 0.5))
        nested.frame(800, .up(1))
        #expect(nested.events(.tap).isEmpty)
        #expect(nested.events(.longPress).map(\.region) == ["page", "page"])
        // The same button on a page (and a top level) without long press: the slow tap is
        // the button's.
        var page = GestureSettings()
        page.enabled.remove(.longPress)
        let quiet = EngineConfiguration(
            defaults: page,
            regions: [
                Region(name: "button", rect: Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2), settings: button),
                Region(name: "page", rect: .unit, settings: page),
            ])
        var slow = GestureHarness(quiet)
        slow.frame(0, .down(1, 0.5, 0.5))
        slow.frame(800, .up(1))
        #expect(slow.events(.tap).map(\.region) == ["button"])
        #expect(slow.events(.longPress).isEmpty)
    }
}
