import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// `clone-orientation = "screen"`: the clone's positions and axes in screen orientation.
@Suite("Pass-through clone in screen orientation")
struct ScreenOrientedCloneTests {
    /// A panel whose axes end at max-1 (0…4095, 0…2399) with different resolutions, so a
    /// swap, an off-by-one or a range taken from the wrong axis all show.
    static let panel: DeviceDescription = {
        let absInfo: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(value: 4095, minimum: 0, maximum: 4095, fuzz: 4, resolution: 16),
            ABS.y: AbsInfo(value: 0, minimum: 0, maximum: 2399, resolution: 10),
            ABS.mtSlot: AbsInfo(minimum: 0, maximum: 4),
            ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AbsInfo(minimum: 0, maximum: 4095, fuzz: 4, resolution: 16),
            ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 2399, resolution: 10),
        ]
        return DeviceDescription(
            name: "ELAN Touchscreen", properties: [INPUTPROP.direct],
            codes: [EV.key: [BTN.touch], EV.abs: Set(absInfo.keys)], absInfo: absInfo)
    }()

    static func clone(_ rotation: Rotation, calibration: [Double] = DeviceGeometry.identityCalibration) -> ScreenOrientedClone {
        let geometry = DeviceGeometry(rotation: rotation, calibration: calibration, calibrationSource: .configuration)
        guard let clone = ScreenOrientedClone(.screen, device: panel, geometry: geometry) else {
            preconditionFailure("a screen orientation makes a clone transform")
        }
        return clone
    }

    /// Panel points: the four corners and one unit in from the top-left one.
    static let points: [(Int32, Int32)] = [(0, 0), (4095, 0), (0, 2399), (4095, 2399), (1, 1), (2048, 600)]

    /// Where each of `points` lands on the clone, worked out by hand from the mounting:
    /// at 90° the panel's top-left corner is the screen's top-right one and its x axis
    /// runs down the screen (the clone's x axis is the panel's y axis: 0…2399).
    @Test(arguments: [
        (Rotation.none, [(0, 0), (4095, 0), (0, 2399), (4095, 2399), (1, 1), (2048, 600)] as [(Int32, Int32)]),
        (.quarter, [(2399, 0), (2399, 4095), (0, 0), (0, 4095), (2398, 1), (1799, 2048)]),
        (.half, [(4095, 2399), (0, 2399), (4095, 0), (0, 0), (4094, 2398), (2047, 1799)]),
        (.threeQuarters, [(0, 4095), (0, 0), (2399, 4095), (2399, 0), (1, 4094), (600, 2047)]),
    ])
    func everyRotationMapsCornersOntoCorners(_ rotation: Rotation, _ expected: [(Int32, Int32)]) {
        let clone = Self.clone(rotation)
        let mapped = Self.points.map { clone.multitouchPosition(x: $0.0, y: $0.1) }
        #expect(mapped.map { [$0.x, $0.y] } == expected.map { [$0.0, $0.1] })
        let single = Self.points.map { clone.singleTouchPosition(x: $0.0, y: $0.1) }
        #expect(single.map { [$0.x, $0.y] } == expected.map { [$0.0, $0.1] }, "ABS_X/ABS_Y as the slots")
    }

    /// The calibration applies before the rotation, as for the daemon's regions: a y flip
    /// by calibration then a quarter turn is a transpose (a rotation first would give
    /// another map).
    @Test func calibrationAppliesBeforeTheRotation() {
        let clone = Self.clone(.quarter, calibration: [1, 0, 0, 0, -1, 1])
        let mapped = [(Int32(0), Int32(0)), (4095, 0), (0, 2399), (1, 2)].map { clone.multitouchPosition(x: $0.0, y: $0.1) }
        #expect(mapped.map { [$0.x, $0.y] } == [[0, 0], [0, 4095], [2399, 0], [2, 1]])
    }

    /// A calibration that shrinks the panel to the middle half of the screen moves its
    /// edges inward (rounded to the nearest unit); one that stretches it holds the points
    /// it puts off the screen at the edge.
    @Test func calibrationScalesAndHoldsAtTheEdges() {
        let shrunk = Self.clone(.none, calibration: [0.5, 0, 0.25, 0, 1, 0])
        #expect(shrunk.multitouchPosition(x: 0, y: 0) == (1024, 0), "0.25 × 4095 = 1023.75")
        #expect(shrunk.multitouchPosition(x: 4095, y: 2399) == (3071, 2399), "0.75 × 4095 = 3071.25")
        let stretched = Self.clone(.none, calibration: [1.5, 0, -0.25, 0, 1, 0])
        #expect(stretched.multitouchPosition(x: 0, y: 0) == (0, 0))
        #expect(stretched.multitouchPosition(x: 600, y: 0) == (0, 0), "off the left edge")
        #expect(stretched.multitouchPosition(x: 4095, y: 0) == (4095, 0))
        #expect(stretched.multitouchPosition(x: 3500, y: 0) == (4095, 0), "off the right edge")
        #expect(stretched.multitouchPosition(x: 2048, y: 0) == (2048, 0), "1.5 × 2048 − 0.25 × 4095 = 2048.25")
    }

    /// An axis that does not start at 0 maps its own minimum and maximum.
    @Test func axesWithAMinimumMapOntoThemselves() throws {
        var device = Self.panel
        device.absInfo[ABS.mtPositionX] = AbsInfo(minimum: 100, maximum: 1100)
        device.absInfo[ABS.mtPositionY] = AbsInfo(minimum: -50, maximum: 49)
        let geometry = DeviceGeometry(rotation: .half)
        let clone = try #require(ScreenOrientedClone(.screen, device: device, geometry: geometry))
        #expect(clone.multitouchPosition(x: 100, y: -50) == (1100, 49))
        #expect(clone.multitouchPosition(x: 101, y: -49) == (1099, 48))
        #expect(clone.multitouchPosition(x: 1100, y: 49) == (100, -50))
    }

    /// The panel's own orientation makes no transform at all.
    @Test func panelOrientationIsNoClone() {
        #expect(ScreenOrientedClone(.panel, device: Self.panel, geometry: DeviceGeometry(rotation: .quarter)) == nil)
    }

    /// A quarter turn swaps each pair's ranges and resolutions (fuzz stays 0 on every
    /// clone); the axes' values are mapped; a half turn keeps the ranges.
    @Test func quarterTurnSwapsTheCloneAxes() {
        let description = PassThroughClone.description(
            cloning: Self.panel, node: "/dev/input/event5", keepPointer: false, screen: Self.clone(.quarter))
        #expect(description.absInfo[ABS.mtPositionX] == AbsInfo(value: 2399, minimum: 0, maximum: 2399, resolution: 10), "panel (0, 0)")
        #expect(description.absInfo[ABS.mtPositionY] == AbsInfo(minimum: 0, maximum: 4095, resolution: 16))
        #expect(description.absInfo[ABS.x] == AbsInfo(value: 2399, minimum: 0, maximum: 2399, resolution: 10), "panel (4095, 0)")
        #expect(description.absInfo[ABS.y] == AbsInfo(value: 4095, minimum: 0, maximum: 4095, resolution: 16))
        let half = PassThroughClone.description(
            cloning: Self.panel, node: "/dev/input/event5", keepPointer: false, screen: Self.clone(.half))
        #expect(half.absInfo[ABS.mtPositionX] == AbsInfo(value: 4095, minimum: 0, maximum: 4095, resolution: 16))
        #expect(half.absInfo[ABS.x] == AbsInfo(value: 0, minimum: 0, maximum: 4095, resolution: 16))
        let panel = PassThroughClone.description(cloning: Self.panel, node: "/dev/input/event5", keepPointer: false)
        #expect(PassThroughClone.storeName(for: description) != PassThroughClone.storeName(for: panel), "a swapped clone is another clone")
    }

    /// Through the filter: every touch reaches the clone at its screen point, the first in a
    /// slot included (a new clone's slots hold 0, which is not where panel 0 maps), and so
    /// does the single-touch emulation; moving along one panel axis moves the other clone
    /// axis; a lift lifts.
    @Test func filterWritesScreenPositions() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 1, y: 1)], pointer: [(1, 1)])
        s.frame([.slot(0, x: 4095)], pointer: [(4095, 1)])
        s.frame([.slot(1, id: 2, x: 0, y: 0)], pointer: [(4095, 1), (0, 0)])
        s.frame([.slot(0, id: -1), .slot(1, id: -1)], pointer: [])
        s.frame([.slot(0, id: 3)], pointer: [(4095, 1)])
        var run = PassThroughRun(Self.panel, PassThroughPolicy(), screen: Self.clone(.quarter))
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(
            frames.map { $0.slots.values.map(\.description).sorted() } == [
                ["#1@(2398, 1)"], ["#1@(2398, 4095)"], ["#1@(2398, 4095)", "#2@(2399, 0)"], [], ["#3@(2398, 4095)"],
            ])
        #expect(frames.map { [$0.axes[ABS.x], $0.axes[ABS.y]] } == [[2398, 1]] + Array(repeating: [2398, 4095], count: 4))
    }

    /// Two panel positions may land on one clone unit (a calibration that shrinks the
    /// panel): a move that writes nothing must not make the filter believe the clone's
    /// readers changed slot, or the next frame's values would land in the wrong slot.
    @Test func aMoveThatMapsToNothingKeepsTheSlotReadersHave() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 1000, y: 100), .slot(1, id: 2, x: 3000, y: 2000)])
        s.frame([.slot(0, x: 1001)])  // the same clone unit
        s.frame([.slot(0, y: 900)])
        var run = PassThroughRun(Self.panel, PassThroughPolicy(), screen: Self.clone(.none, calibration: [0.01, 0, 0, 0, 1, 0]))
        run.feed(s.events)
        #expect(run.reader.frames.last?.slots.values.map(\.description).sorted() == ["#1@(10, 900)", "#2@(30, 2000)"])
    }

    /// Protocol A contacts and a single-touch device are mapped too.
    @Test func protocolAAndSingleTouchAreMapped() {
        var a = EventScript()
        a.contact(x: 0, y: 0)
        a.contact(x: 9600, y: 7200)
        a.key(BTN.touch, true)
        a.report()
        let unslotted = Devices.unslotted()
        var runA = PassThroughRun(
            unslotted, PassThroughPolicy(),
            screen: ScreenOrientedClone(.screen, device: unslotted, geometry: DeviceGeometry(rotation: .threeQuarters)))
        runA.feed(a.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(runA.output)
        #expect(reader.frames.last?.contacts == [[0, 9600], [7200, 0]])

        var single = EventScript()
        single.abs(ABS.x, 4095)
        single.abs(ABS.y, 1)
        single.key(BTN.touch, true)
        single.report()
        let device = Devices.singleTouch()
        var runS = PassThroughRun(
            device, PassThroughPolicy(), screen: ScreenOrientedClone(.screen, device: device, geometry: DeviceGeometry(rotation: .half)))
        runS.feed(single.events)
        #expect(runS.reader.frames.last?.axes == [ABS.x: 0, ABS.y: 4094])
    }
}
