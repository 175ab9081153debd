import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: coordinates and size")
struct TrackingGeometryTests {
    /// Location and millimetres of one touch at raw (x, y) on a 0…1000 × 0…500 device.
    func touch(at x: Int32, _ y: Int32, geometry: DeviceGeometry, resolution: Int32 = 10) -> Contact {
        var tracker = ContactTracker(device: Devices.slotted(resolution: resolution), geometry: geometry)
        var s = EventScript()
        s.slot(0, id: 1, x: x, y: y)
        s.report()
        return tracker.frames(s.events)[0].contacts[0]
    }

    @Test func normalisedFromTheAxisRange() {
        let contact = touch(at: 250, 125, geometry: DeviceGeometry())
        #expect(close(contact.location, Point(x: 0.25, y: 0.25)))
        #expect(close(contact.millimetres, Point(x: 25, y: 12.5)))
    }

    @Test func nonZeroAxisMinimum() {
        var tracker = ContactTracker(device: Devices.semiMTTouchpad())
        var s = EventScript()
        s.slot(0, id: 1, x: 1472 + 2000, y: 1408)
        s.report()
        let contact = tracker.frames(s.events)[0].contacts[0]
        #expect(close(contact.location, Point(x: 0.5, y: 0)))
        #expect(close(contact.millimetres.x, 2000.0 / 55))
    }

    /// Rotation is the panel's clockwise mounting: at 90° the device's top-left corner is the
    /// screen's top-right corner, and moving along the device's x axis moves down the screen.
    @Test(arguments: [
        (Rotation.none, Point(x: 0, y: 0), Point(x: 0.25, y: 0.25)),
        (Rotation.quarter, Point(x: 1, y: 0), Point(x: 0.75, y: 0.25)),
        (Rotation.half, Point(x: 1, y: 1), Point(x: 0.75, y: 0.75)),
        (Rotation.threeQuarters, Point(x: 0, y: 1), Point(x: 0.25, y: 0.75)),
    ])
    func rotation(rotation: Rotation, deviceOrigin: Point, quarterPoint: Point) {
        let geometry = DeviceGeometry(rotation: rotation)
        #expect(close(touch(at: 0, 0, geometry: geometry).location, deviceOrigin))
        #expect(close(touch(at: 250, 125, geometry: geometry).location, quarterPoint))
    }

    @Test func quarterRotationMovesDeviceXDownTheScreen() {
        let geometry = DeviceGeometry(rotation: .quarter)
        let start = touch(at: 100, 100, geometry: geometry)
        let end = touch(at: 900, 100, geometry: geometry)
        #expect(close(end.location.x, start.location.x))
        #expect(end.location.y > start.location.y)
    }

    @Test func millimetresFollowTheRotationInScreenOrientation() {
        // 100 mm × 50 mm panel (resolution 10 units/mm) mounted at 90°: the screen is 50 × 100.
        let geometry = DeviceGeometry(rotation: .quarter)
        var tracker = ContactTracker(device: Devices.slotted(resolution: 10), geometry: geometry)
        #expect(tracker.surface == SurfaceGeometry(width: 50, height: 100, source: .resolution))
        var s = EventScript()
        s.slot(0, id: 1, x: 200, y: 100)  // device: 20 mm right, 10 mm down
        s.report()
        let contact = tracker.frames(s.events)[0].contacts[0]
        #expect(close(contact.millimetres, Point(x: 40, y: 20)))
        #expect(close(contact.location, Point(x: 0.8, y: 0.2)))
        #expect(close(Point(x: contact.location.x * 50, y: contact.location.y * 100), contact.millimetres))
    }

    @Test func calibrationIsAppliedToNormalisedDeviceCoordinatesBeforeRotation() {
        // Swap-and-offset matrix: x' = 0.5·x + 0.1, y' = 2·y − 0.2.
        let matrix = [0.5, 0, 0.1, 0, 2, -0.2]
        let plain = touch(at: 500, 250, geometry: DeviceGeometry(calibration: matrix))
        #expect(close(plain.location, Point(x: 0.35, y: 0.8)))
        // Millimetres ignore the calibration.
        #expect(close(plain.millimetres, Point(x: 50, y: 25)))
        // Then the 180° rotation of the calibrated point.
        let rotated = touch(at: 500, 250, geometry: DeviceGeometry(rotation: .half, calibration: matrix))
        #expect(close(rotated.location, Point(x: 0.65, y: 0.2)))
        // libinput's axis-swap matrix.
        let swapped = touch(at: 250, 400, geometry: DeviceGeometry(calibration: [0, 1, 0, 1, 0, 0]))
        #expect(close(swapped.location, Point(x: 0.8, y: 0.25)))
    }

    @Test func malformedCalibrationFallsBackToIdentity() {
        for matrix in [[1.0, 0, 0], [Double.nan, 0, 0, 0, 1, 0], [Double.infinity, 0, 0, 0, 1, 0, 7]] {
            let contact = touch(at: 250, 125, geometry: DeviceGeometry(calibration: matrix))
            #expect(close(contact.location, Point(x: 0.25, y: 0.25)))
        }
    }

    @Test func valuesOutsideTheRangeAreKept() {
        let contact = touch(at: -100, 600, geometry: DeviceGeometry())
        #expect(close(contact.location, Point(x: -0.1, y: 1.2)))
    }

    @Test func emptyAxisRangeNeverDividesByZero() {
        let absInfo: [UInt16: AbsInfo] = [
            ABS.mtSlot: AbsInfo(minimum: 0, maximum: 1),
            ABS.mtPositionX: AbsInfo(minimum: 5, maximum: 5),
            ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 0),
        ]
        let device = DeviceDescription(name: "flat", absInfo: absInfo)
        var tracker = ContactTracker(device: device)
        #expect(tracker.surface.width.isFinite && tracker.surface.height.isFinite)
        var s = EventScript()
        s.slot(0, id: 1, x: 9, y: -3)
        s.report()
        let contact = tracker.frames(s.events)[0].contacts[0]
        for value in [contact.location.x, contact.location.y, contact.millimetres.x, contact.millimetres.y] {
            #expect(value.isFinite)
        }
    }

    @Test func sizeFromResolution() {
        let surface = ContactTracker(device: Devices.slotted(resolution: 10)).surface
        #expect(surface == SurfaceGeometry(width: 100, height: 50, source: .resolution))
    }

    @Test func oneAxisWithoutResolutionUsesTheOther() {
        var device = Devices.slotted()
        device.absInfo[ABS.mtPositionY]!.resolution = 20
        let surface = ContactTracker(device: device).surface
        #expect(surface == SurfaceGeometry(width: 50, height: 25, source: .resolution))
    }

    @Test func multitouchAxesWithoutResolutionFallBackToAbsXY() {
        var device = Devices.slotted()
        device.absInfo[ABS.x]!.resolution = 10
        device.absInfo[ABS.y]!.resolution = 10
        #expect(ContactTracker(device: device).surface == SurfaceGeometry(width: 100, height: 50, source: .resolution))
    }

    @Test func configuredSizeWinsAndIsInScreenOrientation() {
        let size = PhysicalSize(width: 300, height: 200)
        let plain = ContactTracker(device: Devices.slotted(resolution: 10), geometry: DeviceGeometry(physicalSize: size))
        #expect(plain.surface == SurfaceGeometry(width: 300, height: 200, source: .configured))

        var tracker = ContactTracker(
            device: Devices.slotted(resolution: 10), geometry: DeviceGeometry(rotation: .quarter, physicalSize: size))
        #expect(tracker.surface == SurfaceGeometry(width: 300, height: 200, source: .configured))
        var s = EventScript()
        s.slot(0, id: 1, x: 1000, y: 500)  // device bottom-right = screen bottom-left
        s.report()
        let collected = tracker.frames(s.events)
        #expect(close(collected[0].contacts[0].millimetres, Point(x: 0, y: 200)))
    }

    @Test func unusableConfiguredSizeIsIgnored() {
        let geometry = DeviceGeometry(physicalSize: PhysicalSize(width: 0, height: .nan))
        #expect(ContactTracker(device: Devices.slotted(resolution: 10), geometry: geometry).surface.source == .resolution)
    }

    @Test func fallbackAssumesA338MillimetreDiagonalWithSquareUnits() {
        // 0…1000 × 0…500: diagonal of 1118.03 units = 338 mm.
        let surface = ContactTracker(device: Devices.slotted()).surface
        #expect(surface.source == .fallback)
        #expect(close((surface.width * surface.width + surface.height * surface.height).squareRoot(), 338))
        #expect(close(surface.width / surface.height, 2))
        #expect(surface == SurfaceGeometry(device: Devices.slotted(), geometry: DeviceGeometry()))
    }

    @Test func fallbackForADeviceWithoutRanges() {
        let surface = ContactTracker(device: DeviceDescription(name: "nothing")).surface
        #expect(surface.source == .fallback)
        #expect(close(surface.width, surface.height))
        #expect(close((surface.width * surface.width * 2).squareRoot(), 338))
    }
}
