import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// `app-input = "pointer"`: which touches the pass-through filter keeps off the touch clone
/// and lists for the pointer (`pointerTouches`), decided once at touch-down by the
/// touch-down point, and where they are on the screen.
@Suite("Pass-through filter: app-input")
struct PassThroughAppInputTests {
    static func policy(
        device: AppTouchSettings = AppTouchSettings(), areas: [AppTouchPolicy.Area] = [], reserved: [PassThroughPolicy.ReservedArea] = [],
        geometry: DeviceGeometry = AppTouchFixtures.geometry
    ) -> PassThroughPolicy {
        PassThroughPolicy(reserved: reserved, geometry: geometry, app: AppTouchPolicy(areas: areas, device: device))
    }

    @Test func aPointerDevicesTouchesNeverReachTheCloneAndAreListedWhereTheyAre() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 250, y: 100)], pointer: [(250, 250)])
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy(device: AppTouchSettings(input: .pointer)))
        run.feed(s.events)
        let touches = run.filter.pointerTouches
        #expect(touches.count == 1)
        #expect(touches.first?.location == Point(x: 0.25, y: 0.2))
        #expect(touches.first?.surface == SurfacePoint(millimetresX: 25, y: 10))
        #expect(touches.first?.rules == AppTouchPolicy.PointerRules(limits: AppTouchPolicy.RestLimits(GestureSettings())))
        s.events = []
        s.frame([.slot(0, x: 300)], pointer: [(300, 100)])
        s.frame([.slot(0, id: -1)], pointer: [])
        run.feed(s.events)
        #expect(run.filter.pointerTouches.isEmpty)
        #expect(AppTouchFixtures.cloneIDs(run) == [])
        #expect(run.reader.frames.allSatisfy { ($0.keys[BTN.touch] ?? 0) == 0 })
        #expect(!run.filter.holdsReservedTouch, "a pointer touch is the app's, not reserved")
    }

    /// A region with its own `app-input` decides for the touches that start in it, and a
    /// reserved region wins over both; pointer touches do not count towards `app-fingers`.
    @Test func theTouchDownPointsRegionDecidesAndAReservedRegionWins() {
        let left = AppTouchPolicy.Area(
            rect: Rect(x: 0, y: 0, width: 0.5, height: 1), app: AppTouchSettings(input: .pointer, pointerDrag: .scroll))
        let policy = Self.policy(
            device: AppTouchSettings(fingers: 1), areas: [left],
            reserved: [.init(name: "corner", rect: Rect(x: 0, y: 0, width: 0.1, height: 0.1))])
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 200, y: 250)])  // the pointer region
        s.frame([.slot(1, id: 2, x: 800, y: 250)])  // outside: a touch, the first app finger
        s.frame([.slot(2, id: 3, x: 20, y: 20)])  // the reserved corner inside the pointer region
        s.frame([.slot(1, x: 300)])  // the touch moves into the pointer region: still a touch
        var run = PassThroughRun(PassThroughDevices.slotted, policy)
        run.feed(s.events)
        #expect(AppTouchFixtures.cloneIDs(run) == [2])
        #expect(run.filter.pointerTouches.map(\.rules.drag) == [.scroll])
        #expect(run.filter.pointerTouches.map(\.location.x) == [0.2])
        #expect(run.filter.holdsReservedTouch)
    }

    /// The pointer lands where the finger touched on the screen: the device's rotation (and
    /// calibration) applied, as for the regions.
    @Test func aRotatedPanelsPointerTouchIsInScreenOrientation() {
        let rotated = DeviceGeometry(rotation: .quarter, physicalSize: PhysicalSize(width: 100, height: 50))
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 100, y: 100)])
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy(device: AppTouchSettings(input: .pointer), geometry: rotated))
        run.feed(s.events)
        let expected = ScreenTransform(rotated).screenPoint(u: 0.1, v: 0.2)
        #expect(expected != Point(x: 0.1, y: 0.2))
        let touch = run.filter.pointerTouches.first
        #expect(touch.map { abs($0.location.x - expected.x) < 1e-9 && abs($0.location.y - expected.y) < 1e-9 } == true)
    }

    /// A finish (the daemon stopping, the device gone) ends every pointer touch too.
    @Test func finishListsNoPointerTouch() {
        var s = EventScript()
        s.frame([.slot(0, id: 1, x: 250, y: 100)])
        var run = PassThroughRun(PassThroughDevices.slotted, Self.policy(device: AppTouchSettings(input: .pointer)))
        run.feed(s.events)
        #expect(run.filter.pointerTouches.count == 1)
        run.finish()
        #expect(run.filter.pointerTouches.isEmpty)
    }
}
