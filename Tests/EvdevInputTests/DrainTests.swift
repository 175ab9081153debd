import GestureCore
import GestureProtocol
import Glibc
import SystemCalls
import Testing

@testable import EvdevInput

/// The read loop of `EvdevDevice.readAvailable`, driven by a script of libevdev results.
@Suite struct DrainTests {
    typealias Next = EvdevDevice.NextEvent

    static func ev(_ time: Timestamp, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: time, type: type, code: code, value: value)
    }
    static let dropped = ev(300, EV.syn, SYN.dropped, 0)
    static let droppedThenReport = [dropped, ev(300, EV.syn, SYN.report, 0)]

    /// Runs the drain over `script`, checking that sync mode is requested exactly when expected.
    func run(_ script: [(expectSync: Bool, result: Next)]) throws -> (ReadOutcome, [InputEvent]) {
        var remaining = script[...]
        var delivered: [InputEvent] = []
        let outcome = try EvdevDevice.drain(
            next: { syncMode in
                guard let step = remaining.popFirst() else {
                    Issue.record("read past the end of the script")
                    return .wouldBlock
                }
                #expect(syncMode == step.expectSync, "sync flag at step \(script.count - remaining.count)")
                return step.result
            }, deliver: { delivered.append($0) })
        #expect(remaining.isEmpty)
        return (outcome, delivered)
    }

    @Test func drainsUntilEAGAIN() throws {
        let frame = [Self.ev(100, EV.abs, ABS.mtPositionX, 10), Self.ev(100, EV.syn, SYN.report, 0)]
        let (outcome, events) = try run(frame.map { (false, Next.event($0)) } + [(false, .wouldBlock)])
        #expect(outcome == .drained(events: 2, resyncs: 0))
        #expect(events == frame)
    }

    @Test func synDroppedDeliversTheDeltaAndCarriesOn() throws {
        let delta = [
            Self.ev(310, EV.abs, ABS.mtSlot, 1), Self.ev(310, EV.abs, ABS.mtTrackingID, -1),
            Self.ev(310, EV.syn, SYN.report, 0),
        ]
        let after = [Self.ev(400, EV.abs, ABS.mtPositionX, 5), Self.ev(400, EV.syn, SYN.report, 0)]
        let (outcome, events) = try run(
            [(false, .event(Self.ev(200, EV.abs, ABS.x, 1))), (false, .sync(Self.dropped))]
                + delta.map { (true, Next.sync($0)) } + [(true, .wouldBlock)]
                + after.map { (false, Next.event($0)) } + [(false, .wouldBlock)])
        #expect(outcome == .drained(events: 8, resyncs: 1))
        // SYN_DROPPED is closed at once, so a tracker discarding until SYN_REPORT keeps the
        // delta; libevdev's delta already ends with SYN_REPORT: no second one is added.
        #expect(events == [Self.ev(200, EV.abs, ABS.x, 1)] + Self.droppedThenReport + delta + after)
    }

    @Test func emptyDeltaDeliversNoEmptyFrame() throws {
        let (outcome, events) = try run([(false, .sync(Self.dropped)), (true, .wouldBlock), (false, .wouldBlock)])
        #expect(outcome == .drained(events: 2, resyncs: 1))
        #expect(events == Self.droppedThenReport)
    }

    @Test func deltaWithoutItsOwnReportIsClosed() throws {
        let slot = Self.ev(310, EV.abs, ABS.mtSlot, 0)
        let (_, events) = try run([(false, .sync(Self.dropped)), (true, .sync(slot)), (true, .wouldBlock), (false, .wouldBlock)])
        #expect(events == Self.droppedThenReport + [slot, Self.ev(310, EV.syn, SYN.report, 0)])
    }

    @Test func deviceGoneEndsTheDrain() throws {
        let (outcome, events) = try run([(false, .event(Self.ev(1, EV.abs, ABS.x, 1))), (false, .deviceGone)])
        #expect(outcome == .deviceGone)
        #expect(events.count == 1)
    }

    @Test func goneDuringSync() throws {
        let (outcome, _) = try run([(false, .sync(Self.dropped)), (true, .deviceGone)])
        #expect(outcome == .deviceGone)
    }

    @Test func otherErrorsPropagate() {
        #expect(throws: SystemError(.ioError, call: "libevdev_next_event")) {
            try EvdevDevice.drain(
                next: { _ throws(SystemError) -> Next in
                    throw SystemError(.ioError, call: "libevdev_next_event")
                }, deliver: { _ in })
        }
    }

    @Test func timestampsAreMicroseconds() {
        #expect(EvdevDevice.microseconds(seconds: 12, microseconds: 345_678) == 12_345_678)
        #expect(EvdevDevice.microseconds(seconds: 1_700_000_000, microseconds: 999_999) == 1_700_000_000_999_999)
        #expect(EvdevDevice.microseconds(seconds: -1, microseconds: 5) == 5)
    }
}
