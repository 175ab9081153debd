import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: single touch and finger counts")
struct TrackingSingleTouchTests {
    @Test func btnTouchMakesOneContact() {
        var tracker = ContactTracker(device: Devices.singleTouch())
        var s = EventScript()
        s.key(BTN.touch, true)
        s.abs(ABS.x, 4095)
        s.abs(ABS.y, 0)
        s.report()
        s.abs(ABS.y, 4095)
        s.report()
        s.key(BTN.touch, false)
        s.report()
        s.abs(ABS.x, 10)  // hovering / noise while up: nothing
        s.report()
        s.key(BTN.touch, true)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(
            frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .moved)], [touchState(1, .ended)], [touchState(2, .began)]])
        #expect(close(frames[0].contacts[0].location, Point(x: 1, y: 0)))
        #expect(close(frames[2].contacts[0].location, Point(x: 1, y: 1)))
        #expect(close(frames[3].contacts[0].location.x, 10 / 4095))
    }

    @Test func touchAlreadyDownAtStreamStart() {
        var tracker = ContactTracker(device: Devices.singleTouch())
        var s = EventScript()
        s.abs(ABS.x, 100)
        s.report()
        s.key(BTN.touch, false)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .ended)]])
        #expect(frames[0].contacts[0].startedUnobserved)
    }

    @Test func btnLeftIsTheTouchWhenThereIsNoBtnTouch() {
        var tracker = ContactTracker(device: Devices.singleTouch(keys: [BTN.left]))
        var s = EventScript()
        s.key(BTN.left, true)
        s.abs(ABS.x, 100)
        s.report()
        s.key(BTN.left, false)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.map(\.summary) == [[touchState(1, .began)], [touchState(1, .ended)]])
    }

    @Test func penOnASingleTouchTabletIsIgnored() {
        var tracker = ContactTracker(device: Devices.singleTouch(keys: [BTN.touch, BTN.toolPen]))
        var s = EventScript()
        s.key(BTN.toolPen, true)
        s.key(BTN.touch, true)
        s.abs(ABS.x, 100)
        s.report()
        s.key(BTN.touch, false)
        s.key(BTN.toolPen, false)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.isEmpty)
    }

    @Test func fingerCountComesFromBtnToolWhenItExceedsTheSlots() {
        var tracker = ContactTracker(device: Devices.semiMTTouchpad())
        var s = EventScript()
        s.slot(0, id: 1, x: 2000, y: 2000)
        s.slot(1, id: 2, x: 3000, y: 3000)
        s.key(BTN.touch, true)
        s.key(BTN.toolDoubleTap, true)
        s.report()
        s.key(BTN.toolDoubleTap, false)
        s.key(BTN.toolTripleTap, true)
        s.report()
        s.key(BTN.toolTripleTap, false)
        s.key(BTN.toolQuadTap, true)
        s.report()
        s.key(BTN.toolQuadTap, false)
        s.key(BTN.toolFinger, true)
        s.slot(1, id: -1)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.fingerCount) == [2, 3, 4, 1])
        #expect(frames.map(\.contacts.count) == [2, 2, 2, 2])
    }

    @Test func deviceWithoutPositionAxesProducesNothing() {
        var tracker = ContactTracker(device: DeviceDescription(name: "keyboard"))
        var s = EventScript()
        s.abs(ABS.mtPositionX, 1)
        s.key(BTN.touch, true)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.isEmpty)
    }
}
