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
