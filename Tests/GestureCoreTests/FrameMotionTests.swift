import GestureProtocol
import Testing

@testable import GestureCore

/// `FrameMotion`, what every recognizer of a region reads from one frame, computed directly
/// from contacts: who counts as continuing, down, joined and lifting; the centroid; the
/// movement of the continuing fingers only; travel from touch-down; leaving the region; and
/// the two-finger spread and turn around the centroid.
@Suite struct FrameMotionTests {
    /// A contact whose surface position is its normalised one × 100 mm.
    private func contact(
        _ id: UInt32, from start: (Double, Double), previous: (Double, Double)? = nil, now: (Double, Double),
        joined: Bool = false, lifting: Bool = false
    ) -> TrackedContact {
        let previous = previous ?? start
        func point(_ p: (Double, Double)) -> Point { Point(x: p.0, y: p.1) }
        func surface(_ p: (Double, Double)) -> SurfacePoint { SurfacePoint(millimetresX: p.0 * 100, y: p.1 * 100) }
        return TrackedContact(
            id: id, startLocation: point(start), surfaceStart: surface(start), previousLocation: point(previous),
            previousSurfaceLocation: surface(previous), location: point(now), surfaceLocation: surface(now), unobserved: false,
            joined: joined, lifting: lifting, seen: 0)
    }

    private func isClose(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    @Test func countsDownJoinedLiftingAndContinuingFingers() {
        let motion = FrameMotion(
            contacts: [
                contact(1, from: (0.1, 0.1), now: (0.1, 0.1)),
                contact(2, from: (0.3, 0.1), now: (0.3, 0.1), joined: true),
                contact(3, from: (0.5, 0.1), now: (0.5, 0.1), lifting: true),
            ], rect: nil, deviceFingers: 0)
        #expect(motion.down == 2)
        #expect(motion.lifting == 1)
        #expect(motion.joined == 1)
        #expect(motion.continuing == 1, "neither the joining finger nor the lifting one takes part in the frame's motion")
        #expect(motion.fingersChanged)
        #expect(motion.fingers == 3)
        #expect(!motion.anyMoved)
    }

    @Test func theDeviceCountCanRaiseTheFingers() {
        let contacts = [contact(1, from: (0.5, 0.5), now: (0.5, 0.5))]
        #expect(FrameMotion(contacts: contacts, rect: nil, deviceFingers: 3).fingers == 3, "BTN_TOOL_TRIPLETAP with one slot")
        #expect(FrameMotion(contacts: contacts, rect: nil, deviceFingers: 0).fingers == 1)
    }

    @Test func theCentroidTakesEveryContactTheDeltaOnlyContinuingOnes() {
        let motion = FrameMotion(
            contacts: [
                contact(1, from: (0.2, 0.2), previous: (0.2, 0.2), now: (0.3, 0.2)),
                contact(2, from: (0.8, 0.6), now: (0.8, 0.6), joined: true),
            ], rect: nil, deviceFingers: 0)
        #expect(isClose(motion.centroid.x, 0.55) && isClose(motion.centroid.y, 0.4))
        #expect(isClose(motion.delta.x, 0.1) && motion.delta.y == 0, "a finger joining does not make the others jump")
        #expect(isClose(motion.surfaceDelta.x.millimetres, 10) && motion.surfaceDelta.y.millimetres == 0)
        #expect(motion.anyMoved)
    }

    @Test func travelIsTheFarthestAnyFingerIsFromItsTouchDown() {
        let motion = FrameMotion(
            contacts: [
                contact(1, from: (0.1, 0.1), previous: (0.12, 0.1), now: (0.13, 0.14)),  // 5 mm from its start
                contact(2, from: (0.5, 0.5), now: (0.52, 0.5), joined: true),  // 2 mm
            ], rect: nil, deviceFingers: 0)
        #expect(isClose(motion.maximumTravel.millimetres, 5))
    }

    @Test func allOutsideOnlyWhenEveryFingerLeftTheRegion() {
        let region = Rect(x: 0, y: 0, width: 0.5, height: 0.5)
        let bothOut = [contact(1, from: (0.2, 0.2), now: (0.7, 0.2)), contact(2, from: (0.3, 0.3), now: (0.6, 0.6))]
        let oneIn = [contact(1, from: (0.2, 0.2), now: (0.7, 0.2)), contact(2, from: (0.3, 0.3), now: (0.3, 0.3))]
        #expect(FrameMotion(contacts: bothOut, rect: region, deviceFingers: 0).allOutside)
        #expect(!FrameMotion(contacts: oneIn, rect: region, deviceFingers: 0).allOutside)
        #expect(!FrameMotion(contacts: bothOut, rect: nil, deviceFingers: 0).allOutside, "the top level has no outside")
        #expect(!FrameMotion(contacts: [], rect: region, deviceFingers: 0).allOutside, "no finger is not every finger outside")
    }

    @Test func twoFingersSpreadingAndTurningAroundTheirCentroid() {
        // 20 mm apart on a horizontal line, then 40 mm apart on a vertical one: twice the
        // spread (10 → 20 mm from the centroid) and a quarter turn. The left finger going
        // up (9 to 12 o'clock) is clockwise on screen (y grows downwards): positive.
        let clockwise = FrameMotion(
            contacts: [
                contact(1, from: (0.4, 0.5), previous: (0.4, 0.5), now: (0.5, 0.3)),
                contact(2, from: (0.6, 0.5), previous: (0.6, 0.5), now: (0.5, 0.7)),
            ], rect: nil, deviceFingers: 0)
        #expect(isClose(clockwise.spreadRatio, 2))
        #expect(isClose(clockwise.spreadChange.millimetres, 10))
        #expect(isClose(clockwise.turn.degrees, 90))
        let counterclockwise = FrameMotion(
            contacts: [
                contact(1, from: (0.4, 0.5), previous: (0.4, 0.5), now: (0.5, 0.7)),
                contact(2, from: (0.6, 0.5), previous: (0.6, 0.5), now: (0.5, 0.3)),
            ], rect: nil, deviceFingers: 0)
        #expect(isClose(counterclockwise.turn.degrees, -90))
        #expect(isClose(counterclockwise.spreadRatio, 2))
    }

    @Test func aJoiningFingerTakesNoPartInSpreadOrTurn() {
        let motion = FrameMotion(
            contacts: [
                contact(1, from: (0.4, 0.5), now: (0.4, 0.5)),
                contact(2, from: (0.6, 0.5), now: (0.6, 0.5)),
                contact(3, from: (0.9, 0.9), now: (0.9, 0.9), joined: true),
            ], rect: nil, deviceFingers: 0)
        #expect(motion.spreadRatio == 1)
        #expect(motion.spreadChange == .zero)
        #expect(motion.turn == .zero)
    }

    @Test func aSpreadTooSmallIsNoScaleReference() {
        // Two fingers on (almost) one spot moving apart: no ratio against a spread of zero.
        let motion = FrameMotion(
            contacts: [
                contact(1, from: (0.5, 0.5), previous: (0.5, 0.5), now: (0.45, 0.5)),
                contact(2, from: (0.5, 0.5), previous: (0.5005, 0.5), now: (0.55, 0.5)),
            ], rect: nil, deviceFingers: 0)
        #expect(motion.spreadRatio == 1, "0.025 mm before: below the 0.1 mm minimum")
        #expect(motion.spreadChange.millimetres > 4.9, "the change of spread is still reported")
        #expect(motion.turn == .zero, "fingers within 0.5 mm of the centroid carry no angle")
    }

    @Test func oneFingerHasNoSpreadAndNoContactsNoMotion() {
        let one = FrameMotion(contacts: [contact(1, from: (0.5, 0.5), previous: (0.5, 0.5), now: (0.6, 0.5))], rect: nil, deviceFingers: 0)
        #expect(one.spreadRatio == 1 && one.turn == .zero)
        #expect(isClose(one.delta.x, 0.1))
        let none = FrameMotion(contacts: [], rect: nil, deviceFingers: 0)
        #expect(none.centroid == .zero && none.delta == .zero && none.fingers == 0 && none.continuing == 0)
    }
}
