import GestureCore
import GestureProtocol
import Testing

@Suite("ContactTracker: protocol B")
struct TrackingProtocolBTests {
    @Test func touchMoveLift() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 7, x: 100, y: 50)
        s.key(BTN.touch, true)
        s.report()
        s.slot(0, x: 200)
        s.report()
        s.slot(0, id: -1)
        s.key(BTN.touch, false)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .moved)], [touchState(1, .ended)]])
        #expect(frames.map(\.fingerCount) == [1, 1, 0])
        #expect(close(frames[0].contacts[0].location, Point(x: 0.1, y: 0.1)))
        #expect(close(frames[1].contacts[0].location, Point(x: 0.2, y: 0.1)))
        // The lift keeps the last reported position.
        #expect(close(frames[2].contacts[0].location, Point(x: 0.2, y: 0.1)))
        #expect(frames.allSatisfy { !$0.contacts[0].startedUnobserved })
        #expect(frames.map(\.time) == [1_000_000, 1_010_000, 1_020_000])
    }

    @Test func twoFingersEveryDownContactInEveryFrame() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.report()
        s.slot(1, id: 2, x: 500, y: 100)
        s.report()
        s.slot(1, x: 600)  // slot 0 does not move but is still down
        s.report()
        s.slot(0, id: -1)
        s.report()
        s.slot(1, id: -1)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(
            frames.map(\.summary) == [
                [touchState(1, .began)], [touchState(1, .moved), touchState(2, .began)], [touchState(1, .moved), touchState(2, .moved)],
                [touchState(1, .ended), touchState(2, .moved)], [touchState(2, .ended)],
            ])
        #expect(frames.map(\.fingerCount) == [1, 2, 2, 1, 0])
    }

    /// A frame looks only at the slots up to the highest one ever addressed: a
    /// device opened with slot 5 selected reports there without `ABS_MT_SLOT`, and a finger
    /// in the last of 60 slots still begins, moves and ends.
    @Test func slotsFarFromTheFirstAreReported() {
        var device = Devices.slotted(slots: 60)
        device.absInfo[ABS.mtSlot]?.value = 5
        var tracker = ContactTracker(device: device)
        var s = EventScript()
        s.abs(ABS.mtTrackingID, 3)
        s.abs(ABS.mtPositionX, 100)
        s.abs(ABS.mtPositionY, 50)
        s.report()
        s.slot(59, id: 4, x: 500, y: 100)
        s.report()
        s.slot(59, x: 600)
        s.report()
        s.slot(5, id: -1)
        s.slot(59, id: -1)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(
            frames.map(\.summary) == [
                [touchState(1, .began)], [touchState(1, .moved), touchState(2, .began)], [touchState(1, .moved), touchState(2, .moved)],
                [touchState(1, .ended), touchState(2, .ended)],
            ])
        #expect(frames.map(\.fingerCount) == [1, 2, 2, 0])
    }

    @Test func trackingIDChangeWithoutLiftEndsTheOldContactAndBeginsANewOne() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 874, x: 100, y: 100)
        s.report()
        s.slot(0, id: 875, x: 900, y: 400)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .ended), touchState(2, .began)]])
        // The old contact ends where it was; the new one starts at the new position.
        #expect(close(frames[1].contact(1)!.location, Point(x: 0.1, y: 0.2)))
        #expect(close(frames[1].contact(2)!.location, Point(x: 0.9, y: 0.8)))
        #expect(frames[1].fingerCount == 1)
    }

    @Test func liftAndNewTouchInOneSlotWithinOneFrame() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.report()
        s.slot(0, id: -1)
        s.slot(0, id: 2, x: 300, y: 300)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .ended), touchState(2, .began)]])
        #expect(close(frames[1].contact(1)!.location, Point(x: 0.1, y: 0.2)))
    }

    @Test func slotAlreadyActiveAtStreamStartIsStartedUnobserved() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.abs(ABS.mtPositionX, 400)  // slot 0 (the device's current slot), no tracking id seen
        s.report()
        s.abs(ABS.mtPositionX, 410)
        s.report()
        s.abs(ABS.mtTrackingID, -1)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .moved)], [touchState(1, .ended)]])
        #expect(frames.allSatisfy { $0.contacts[0].startedUnobserved })
    }

    @Test func positionsOfASlotKnownEmptyAreIgnored() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.report()
        s.slot(0, id: -1)
        s.report()
        s.slot(0, x: 300)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .ended)]])
    }

    /// one_finger_swipe_late_tid.dat: positions first, the tracking id last in the same frame.
    @Test func trackingIDAfterPositionsInTheSameFrame() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.abs(ABS.mtPositionX, 861)
        s.abs(ABS.mtPositionY, 259)
        s.abs(ABS.mtTrackingID, 33)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)]])
        #expect(frames[0].contacts[0].startedUnobserved == false)
        #expect(close(frames[0].contacts[0].location, Point(x: 0.861, y: 0.518)))
    }

    @Test func contactThatBeginsAndEndsInOneFrameArrivesOnceAsEnded() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.slot(0, id: 1, x: 100, y: 100)
        s.report()
        s.slot(1, id: 2, x: 500, y: 250)
        s.slot(1, id: -1)
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.map(\.summary) == [[touchState(1, .began)], [touchState(1, .moved), touchState(2, .ended)]])
        #expect(close(frames[1].contact(2)!.location, Point(x: 0.5, y: 0.5)))
        #expect(frames[1].fingerCount == 1)
    }

    @Test func sixtySlots() {
        var tracker = ContactTracker(device: Devices.slotted(slots: 60))
        var s = EventScript()
        for slot in Int32(0)..<60 { s.slot(slot, id: slot + 100, x: slot * 10, y: 10) }
        s.report()
        for slot in Int32(0)..<60 { s.slot(slot, id: -1) }
        s.report()
        let frames = tracker.frames(s.events)
        #expect(frames.count == 2)
        #expect(frames[0].contacts.count == 60 && frames[0].contacts.allSatisfy { $0.phase == .began })
        #expect(frames[0].fingerCount == 60)
        #expect(Set(frames[0].contacts.map(\.id)).count == 60)
        #expect(frames[1].contacts.count == 60 && frames[1].contacts.allSatisfy { $0.phase == .ended })
    }

    @Test func reportWithNothingToSayCompletesNoFrame() {
        var tracker = ContactTracker(device: Devices.slotted())
        var s = EventScript()
        s.key(BTN.left, true)
        s.report()
        let collected = tracker.frames(s.events)
        #expect(collected.isEmpty)
    }

    @Test func contactIDsAreNeverReused() {
        var tracker = ContactTracker(device: Devices.slotted(slots: 2))
        var s = EventScript()
        for round in Int32(0)..<5 {
            s.slot(0, id: round, x: 100, y: 100)
            s.report()
            s.slot(0, id: -1)
            s.report()
        }
        let ids = tracker.frames(s.events).flatMap(\.contacts).filter { $0.phase == .began }.map(\.id)
        #expect(ids == [1, 2, 3, 4, 5])
    }
}
