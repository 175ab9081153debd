import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: hovering fingers")
struct TrackingHoverTests {
    /// Synaptics single-touch pads send ABS_X/Y and BTN_TOOL_FINGER before BTN_TOUCH: a
    /// hovering finger is neither a contact nor a finger in the count.
    @Test func positionsAndToolKeysBeforeTouchAreHover() {
        let device = DeviceDescription(
            name: "SynPS2 Synaptics TouchPad", properties: [INPUTPROP.pointer],
            codes: [EV.key: [BTN.touch, BTN.toolFinger, BTN.toolDoubleTap], EV.abs: [ABS.x, ABS.y]],
            absInfo: [ABS.x: AbsInfo(minimum: 1472, maximum: 5472), ABS.y: AbsInfo(minimum: 1408, maximum: 4448)])
        var tracker = ContactTracker(device: device)
        var hover = EventScript()
        hover.abs(ABS.x, 3564)
        hover.abs(ABS.y, 3001)
        hover.key(BTN.toolFinger, true)
        hover.report()
        #expect(tracker.frames(hover.events).isEmpty)

        var touch = EventScript()
        touch.key(BTN.touch, true)
        touch.abs(ABS.x, 3553)
        touch.report()
        let frames = tracker.frames(touch.events)
        #expect(frames.count == 1)
        #expect(frames.first?.contacts.first?.phase == .began)
        #expect(frames.first?.contacts.first?.startedUnobserved == false)
        #expect(frames.first?.fingerCount == 1)
    }
}
