import GestureCore
import GestureProtocol
import Testing

/// `[daemon] idle-timeout` as a state machine on a virtual clock (seconds as timestamps).
@Suite struct ActivityMonitorTests {
    static func at(_ seconds: Double) -> Timestamp { Timestamp(microseconds: UInt64(seconds * 1_000_000)) }

    @Test func nobodyTouchingGoesIdleOneTimeoutAfterTheStart() {
        var monitor = ActivityMonitor(timeout: .seconds(60), now: Self.at(10))
        #expect(monitor.deadline == Self.at(70))
        #expect(monitor.advance(to: Self.at(69.9)) == nil)
        #expect(monitor.advance(to: Self.at(75)) == .idle(at: Self.at(70)))
        #expect(monitor.isIdle)
        #expect(monitor.deadline == nil)
        #expect(monitor.advance(to: Self.at(1000)) == nil)
        #expect(monitor.lastTouch == nil)
    }

    @Test func aTouchPostponesIdleAndTheFirstTouchAfterIdleIsActive() {
        var monitor = ActivityMonitor(timeout: .seconds(60), now: .zero)
        #expect(monitor.touched(device: "A", at: Self.at(30), down: 0) == nil)
        #expect(monitor.deadline == Self.at(90))
        #expect(monitor.advance(to: Self.at(60)) == nil)
        #expect(monitor.advance(to: Self.at(90)) == .idle(at: Self.at(90)))
        #expect(monitor.touched(device: "B", at: Self.at(200), down: 1) == .active(at: Self.at(200)))
        #expect(monitor.lastTouch == Self.at(200))
        #expect(!monitor.isIdle)
    }

    /// A finger resting on the screen sends no events, and is not idleness.
    @Test func neverIdleWhileAFingerIsDown() {
        var monitor = ActivityMonitor(timeout: .seconds(1), now: .zero)
        #expect(monitor.touched(device: "A", at: Self.at(0.5), down: 1) == nil)
        #expect(monitor.touched(device: "B", at: Self.at(0.6), down: 2) == nil)
        #expect(monitor.touched(device: "A", at: Self.at(0.7), down: 0) == nil)
        #expect(monitor.deadline == nil, "B still has fingers down")
        #expect(monitor.advance(to: Self.at(100)) == nil)
        #expect(monitor.touched(device: "B", at: Self.at(100), down: 0) == nil)
        #expect(monitor.deadline == Self.at(101))
    }

    @Test func aDeviceUnpluggedWithAFingerDownReleasesIt() {
        var monitor = ActivityMonitor(timeout: .seconds(1), now: .zero)
        _ = monitor.touched(device: "A", at: Self.at(1), down: 1)
        monitor.deviceRemoved("A", at: Self.at(5))
        #expect(monitor.deadline == Self.at(6))
        monitor.deviceRemoved("unknown", at: Self.at(5.5))
        #expect(monitor.deadline == Self.at(6))
    }

    @Test func zeroIsOff() {
        var monitor = ActivityMonitor(timeout: .zero, now: .zero)
        #expect(monitor.deadline == nil)
        #expect(monitor.touched(device: "A", at: Self.at(1), down: 0) == nil)
        #expect(monitor.advance(to: Self.at(1_000_000)) == nil)
        #expect(monitor.lastTouch == Self.at(1), "status reports the last touch whatever the timeout")
    }

    @Test func reloadingChangesTheTimeoutAndTurningItOffWhileIdleSaysActive() {
        var monitor = ActivityMonitor(timeout: .seconds(10), now: .zero)
        #expect(monitor.reconfigure(timeout: .seconds(20), now: Self.at(5)) == nil)
        #expect(monitor.deadline == Self.at(20))
        #expect(monitor.advance(to: Self.at(20)) == .idle(at: Self.at(20)))
        #expect(monitor.reconfigure(timeout: .seconds(30), now: Self.at(25)) == nil)
        #expect(monitor.isIdle)
        #expect(monitor.reconfigure(timeout: .zero, now: Self.at(26)) == .active(at: Self.at(26)))
        #expect(monitor.deadline == nil)
        #expect(monitor.reconfigure(timeout: .seconds(5), now: Self.at(40)) == nil)
        #expect(monitor.deadline == Self.at(45))
    }
}
