import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

@Suite("Pass-through filter: wake-swallow")
struct PassThroughWakeTests {
    static func tap(_ s: inout EventScript, id: Int32) {
        s.frame([.slot(0, id: id, x: 500, y: 250)], pointer: [(500, 250)])
        s.frame([.slot(0, id: -1)], pointer: [])
    }

    @Test func theFirstTouchAfterIdleIsSwallowed() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: true))
        var s = EventScript()
        Self.tap(&s, id: 1)
        run.feed(s.events)
        run.filter.idle()
        run.filter.idle()  // twice idle is still one wake touch
        s.events = []
        Self.tap(&s, id: 2)
        Self.tap(&s, id: 3)
        run.feed(s.events)
        let ids = run.output.filter { $0.code == ABS.mtTrackingID && $0.value >= 0 }.map(\.value)
        #expect(ids == [1, 3])
    }

    @Test func withoutWakeSwallowIdleChangesNothing() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: false))
        run.filter.idle()
        var s = EventScript()
        Self.tap(&s, id: 1)
        run.feed(s.events)
        #expect(run.output.contains { $0.code == ABS.mtTrackingID && $0.value == 1 })
    }

    @Test func turningWakeSwallowOffByReloadDisarmsIt() {
        var run = PassThroughRun(PassThroughDevices.slotted, PassThroughPolicy(wakeSwallow: true))
        run.filter.idle()
        run.filter.reconfigure(PassThroughPolicy(wakeSwallow: false))
        var s = EventScript()
        Self.tap(&s, id: 1)
        run.feed(s.events)
        #expect(run.output.contains { $0.code == ABS.mtTrackingID && $0.value == 1 })
    }
}
