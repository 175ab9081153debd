import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: protocol A")
struct TrackingProtocolATests {
    @Test func nearestNeighbourKeepsIdentitiesWhenTheReportOrderChanges() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.contact(x: 8000, y: 6000)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 8100, y: 6000)  // reported first now
        s.contact(x: 1100, y: 1000)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames[0].summary == [touchState(1, .began), touchState(2, .began)])
        #expect(Set(frames[1].summary.map(\.description)) == ["1:moved", "2:moved"])
        #expect(close(frames[1].contact(1)!.location.x, 1100 / 9600))
        #expect(close(frames[1].contact(2)!.location.x, 8100 / 9600))
    }

    @Test func aContactMissingFromTheNextFrameEndsAndANewOneBegins() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.contact(x: 8000, y: 6000)
        s.report()
        s.contact(x: 7900, y: 6100)
        s.report()
        s.contact(x: 7800, y: 6200)
        s.contact(x: 3000, y: 3000)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames[1].summary == [touchState(1, .ended), touchState(2, .moved)])
        #expect(close(frames[1].contact(1)!.location.x, 1000 / 9600))
        #expect(frames[2].summary == [touchState(2, .moved), touchState(3, .began)])
        #expect(frames.map(\.fingerCount) == [2, 1, 2])
    }

    /// The N-Trig recordings end with a frame holding only BTN_TOUCH 0.
    @Test func frameWithoutReportsLiftsEverything() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.contact(x: 8000, y: 6000)
        s.report()
        s.key(BTN.touch, false)
        s.report()
        s.syn(SYN.mtReport)  // an empty SYN_MT_REPORT: nothing down either
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.count == 2)
        #expect(frames[1].summary == [touchState(1, .ended), touchState(2, .ended)])
        #expect(frames[1].fingerCount == 0)
    }

    @Test func trackingIDsWinOverDistance() {
        var tracker = ContactTracker(device: Devices.unslotted(trackingIDs: true))
        var s = EventScript()
        s.contact(x: 1000, y: 1000, id: 5)
        s.report()
        // Same place but another id: a new contact; id 5 moved far.
        s.contact(x: 1000, y: 1000, id: 6)
        s.contact(x: 9000, y: 7000, id: 5)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames[1].summary == [touchState(2, .began), touchState(1, .moved)])
        #expect(close(frames[1].contact(1)!.location.x, 9000 / 9600))
    }

    @Test func lastReportWithoutTerminatorStillCounts() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.abs(ABS.mtPositionX, 5000)
        s.abs(ABS.mtPositionY, 5000)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.first?.contacts.count == 2)
    }

    @Test func palmInProtocolAIsCancelledThenIgnored() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.report()
        s.abs(ABS.mtToolType, MTTool.palm)
        s.contact(x: 1000, y: 1000)
        s.report()
        s.contact(x: 1000, y: 1000)  // a finger again, but the same contact: still ignored
        s.report()
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .cancelled)]])
    }
}
