import GestureClient
import GestureProtocol
import Testing

/// `gesturectl subscribe --compact`'s collapsing of `changed` events.
@Suite struct ChangeCollapserTests {
    private func gesture(_ phase: GesturePhase, id: UInt64) -> ServerMessage {
        .gesture(
            GestureMessage(
                phase: phase, id: id, seq: id, time: Timestamp(microseconds: 0), device: "d", region: nil, fingers: 2,
                location: Point(x: 0.5, y: 0.5), details: .pinch(scale: 1.5, velocity: 0)))
    }

    @Test func changedEventsAreCountedAndReportedWithTheGesturesLastPhase() {
        var collapser = ChangeCollapser()
        #expect(collapser.received(gesture(.began, id: 1)) == .show)
        #expect(collapser.received(gesture(.began, id: 2)) == .show)
        for _ in 0..<3 { #expect(collapser.received(gesture(.changed, id: 1)) == .leaveOut) }
        #expect(collapser.received(gesture(.changed, id: 2)) == .leaveOut)
        #expect(collapser.received(.overflow(dropped: 1)) == .show)
        #expect(collapser.received(gesture(.cancelled, id: 2)) == .showWithChanges(1))
        #expect(collapser.received(gesture(.ended, id: 1)) == .showWithChanges(3))
        // A discrete gesture (one `ended`) and a second end of the same id: nothing counted.
        #expect(collapser.received(gesture(.ended, id: 3)) == .show)
        #expect(collapser.received(gesture(.ended, id: 1)) == .show)
    }

    @Test func openGesturesAreBoundedAndGoodbyeForgetsThem() {
        var collapser = ChangeCollapser()
        for id in 0..<UInt64(ChangeCollapser.maximumOpenGestures) {
            #expect(collapser.received(gesture(.changed, id: id)) == .leaveOut)
        }
        // One more open gesture is shown rather than counted; the counted ones go on.
        #expect(collapser.received(gesture(.changed, id: 9_999)) == .show)
        #expect(collapser.received(gesture(.changed, id: 0)) == .leaveOut)
        #expect(collapser.received(gesture(.ended, id: 0)) == .showWithChanges(2))
        #expect(collapser.received(.goodbye(reason: "stopping")) == .show)
        #expect(collapser.received(gesture(.ended, id: 1)) == .show)
        #expect(collapser.received(gesture(.changed, id: 9_999)) == .leaveOut)
    }
}
