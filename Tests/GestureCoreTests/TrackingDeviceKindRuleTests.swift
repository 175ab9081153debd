import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: device-kind rules")
struct TrackingDeviceKindRuleTests {
    /// N-Trig holds BTN_TOOL_DOUBLETAP with a single contact down: a touchscreen's finger
    /// count must come from its contacts alone.
    @Test func touchscreenFingerCountIgnoresToolKeys() {
        var device = Devices.slotted(slots: 4)
        device.properties = [INPUTPROP.direct]
        device.codes[EV.key, default: []].formUnion([BTN.touch, BTN.toolDoubleTap])
        var tracker = ContactTracker(device: device)
        var s = EventScript()
        s.slot(0, id: 1, x: 10, y: 10)
        s.key(BTN.toolDoubleTap, true)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.count == 1)
        #expect(frames.first?.fingerCount == 1)
    }

    @Test func touchpadWithoutResolutionFallsBackToLibinputsTouchpadSize() {
        var touchpad = DeviceDescription(
            name: "pad", properties: [INPUTPROP.pointer],
            codes: [EV.key: [BTN.toolFinger, BTN.touch], EV.abs: [ABS.x, ABS.y]])
        touchpad.absInfo[ABS.x] = AbsInfo(minimum: 0, maximum: 6900)
        touchpad.absInfo[ABS.y] = AbsInfo(minimum: 0, maximum: 5000)
        let surface = SurfaceGeometry(device: touchpad, geometry: DeviceGeometry())
        #expect(surface.source == .fallback)
        #expect(abs(surface.width - 69) < 0.1)
        #expect(abs(surface.height - 50) < 0.1)

        var screen = touchpad
        screen.properties = [INPUTPROP.direct]
        screen.codes[EV.key] = [BTN.touch]
        let screenSurface = SurfaceGeometry(device: screen, geometry: DeviceGeometry())
        #expect(abs((screenSurface.width * screenSurface.width + screenSurface.height * screenSurface.height).squareRoot() - 338) < 0.1)
    }
}
