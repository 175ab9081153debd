import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: SYN_DROPPED and cancelAll")
struct TrackingDropTests {
    @Test func droppedCancelsEverythingDiscardsToTheNextReportAndResumesUnobserved() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.slot(1, id: 2, x: 500, y: 100)
        s.report()
        s.slot(0, x: 150)  // partial frame: discarded
        let dropTime = s.time
        s.syn(SYN.dropped)
        s.slot(1, id: -1)  // discarded, up to and including the next report
        s.report()
        s.slot(0, x: 170)  // slot 0 is still down: found again without a fresh id
        s.slot(1, id: 9, x: 600, y: 100)  // a fresh tracking id: a normal start
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.count == 3)
        #expect(frames[1].summary == [touchState(1, .cancelled), touchState(2, .cancelled)])
        #expect(frames[1].time == Timestamp(microseconds: dropTime))
        #expect(close(frames[1].contact(1)!.location.x, 0.1))  // the last delivered position
        #expect(frames[1].fingerCount == 0)
        #expect(frames[2].summary == [touchState(3, .began), touchState(4, .began)])
        #expect(frames[2].contact(3)!.startedUnobserved)
        #expect(!frames[2].contact(4)!.startedUnobserved)
        #expect(close(frames[2].contact(3)!.location.x, 0.17))
    }

    @Test func droppedWithNothingDownCompletesNoFrame() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.syn(SYN.dropped)
        s.slot(0, id: 1, x: 100, y: 100)
        s.report()
        s.slot(0, id: 2, x: 100, y: 100)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.map(\.summary) == [[touchState(1, .began)]])
    }

    @Test func droppedInProtocolA() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.report()
        s.syn(SYN.dropped)
        s.contact(x: 1100, y: 1000)
        s.report()
        s.contact(x: 1200, y: 1000)
        s.report()
        s.contact(x: 1300, y: 1000)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(
            frames.map(\.summary) == [
                [touchState(1, .began)], [touchState(1, .cancelled)], [touchState(2, .began)], [touchState(2, .moved)],
            ])
        #expect(frames[2].contacts[0].startedUnobserved)
        #expect(frames[3].contacts[0].startedUnobserved)
    }

    @Test func cancelAllCancelsLiveContactsAndIgnoresThemUntilTheyLift() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.count == 1)
        let cancelled = tracker.cancelAll(at: 5_000_000)
        #expect(cancelled)
        #expect(tracker.frame.summary == [touchState(1, .cancelled)])
        #expect(tracker.frame.time == 5_000_000)
        let cancelledAgain = tracker.cancelAll(at: 5_000_001)
        #expect(!cancelledAgain)

        var t = EventScript(time: 6_000_000)
        t.slot(0, x: 300)
        t.report()
        t.slot(0, id: -1)
        t.report()
        t.slot(0, id: 2, x: 100, y: 100)
        t.report()
        let resumed = tracker.frames(t.events)
        #expect(resumed.map(\.summary) == [[touchState(2, .began)]])
    }

    @Test func cancelAllInProtocolA() {
        var tracker = ContactTracker(device: Devices.unslotted())
        var s = EventScript()
        s.contact(x: 1000, y: 1000)
        s.report()
        _ = tracker.frames(s.events)
        let cancelled = tracker.cancelAll(at: 2_000_000)
        #expect(cancelled)
        #expect(tracker.frame.summary == [touchState(1, .cancelled)])
        var t = EventScript(time: 3_000_000)
        t.contact(x: 1000, y: 1000)
        t.report()
        t.report()
        let resumed = tracker.frames(t.events)
        #expect(resumed.isEmpty)
    }
}
