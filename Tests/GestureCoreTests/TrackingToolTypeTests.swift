import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: palm and pen")
struct TrackingToolTypeTests {
    @Test func fingerBecomingPalmIsCancelledOnceAndIgnoredUntilItLifts() {
        var tracker = ContactTracker(device: Devices.slotted(toolType: true))
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100, tool: MTTool.finger)
        s.report()
        s.slot(0, x: 120, tool: MTTool.palm)
        s.report()
        s.slot(0, x: 140)
        s.report()
        s.slot(0, x: 160, tool: MTTool.finger)  // back to a finger: still the palm's contact
        s.report()
        s.slot(0, id: -1)
        s.report()
        s.slot(0, id: 2, x: 100, y: 100)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .cancelled)], [touchState(2, .began)]])
        #expect(close(frames[1].contacts[0].location.x, 0.12))
    }

    @Test func contactThatStartsAsPalmOrPenIsNeverReported() {
        var tracker = ContactTracker(device: Devices.slotted(toolType: true))
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100, tool: MTTool.palm)
        s.slot(1, id: 2, x: 500, y: 100, tool: MTTool.pen)
        s.slot(2, id: 3, x: 900, y: 100, tool: MTTool.finger)
        s.key(BTN.toolTripleTap, true)
        s.report()
        s.slot(0, id: -1)
        s.slot(1, id: -1)
        s.key(BTN.toolTripleTap, false)
        s.key(BTN.toolFinger, true)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .moved)]])  // ignored contacts take no id
        // The device counts three tools; two of them are not fingers.
        #expect(frames.map(\.fingerCount) == [1, 1])
    }

    @Test func toolTypePersistsInTheSlotLikeTheKernelsValues() {
        var tracker = ContactTracker(device: Devices.slotted(toolType: true))
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100, tool: MTTool.palm)
        s.report()
        s.slot(0, id: -1)
        s.report()
        s.slot(0, id: 2, x: 100, y: 100)  // no tool type sent: still a palm for the kernel
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.isEmpty)
    }
}
