import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Testing

/// `[daemon] idle-timeout` through `gestured run --replay`: the verdicts compare the
/// daemon's own stamps and the order of lines, never how long anything took.
@Suite struct ActivityProgramTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path
    static let timeoutMicroseconds: UInt64 = 500_000

    /// Idle before anyone touches; `active` when the replay's first touch is read, before any
    /// line of that touch; idle again one timeout after the last touch (what `status`
    /// reports); a client connecting while idle is told at once.
    @Test func idleActiveIdleAroundAReplay() throws {
        let daemon = try DaemonProcess(
            extraArguments: ["--replay", Self.demo, "--speed", "20", "--wait-for-subscriber"],
            configuration: "[daemon]\nidle-timeout = 0.5\n")
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        // Nobody subscribed, so nothing plays: the daemon goes idle.
        let firstIdle = try client.readMessage(\.activity)
        #expect(firstIdle.phase == .idle)
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")

        var lines: [ServerMessage] = []
        var activities: [ActivityMessage] = []
        while activities.count < 2 {
            let message = try client.readMessage()
            lines.append(message)
            if let activity = message.activity { activities.append(activity) }
        }
        #expect(activities.map(\.phase) == [.active, .idle])
        let kinds = lines.map(\.type)
        let activeIndex = try #require(kinds.firstIndex(of: "activity"))
        let firstTouch = try #require(kinds.firstIndex { $0 == "touch" || $0 == "gesture" })
        #expect(activeIndex < firstTouch, "active comes before the waking touch's lines: \(kinds.prefix(5))")
        let lastTouch = try #require(kinds.lastIndex { $0 == "touch" })
        #expect(lastTouch < kinds.count - 1 && kinds.last == "activity", "idle comes after every touch")
        let seqs = lines.compactMap { $0.event?.seq }
        #expect(
            seqs.count == lines.count && seqs == seqs.sorted() && Set(seqs).count == seqs.count,
            "activity lines are numbered with the events")
        let idleTime = activities[1].time.microseconds
        let activeTime = activities[0].time.microseconds
        #expect(idleTime >= activeTime + Self.timeoutMicroseconds)

        try client.send(#"{"type":"status"}"# + "\n")
        let status = try client.readMessage(\.status)
        let statusLastTouch = try #require(status.lastTouch).microseconds
        #expect(statusLastTouch + Self.timeoutMicroseconds == idleTime)

        let late = try LineClient(path: daemon.socketPath)
        _ = try late.readMessage(\.hello)
        let told = try #require(try late.readMessage().activity)
        #expect(told.phase == .idle)
        #expect(told.time.microseconds == idleTime)
        #expect(told.seq == 1)

        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// Before any touch, `status` says so with `null`.
    @Test func statusHasNoLastTouchBeforeTheFirst() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(#"{"type":"status"}"# + "\n")
        let status = try client.readMessage(\.status)
        #expect(status.lastTouch == nil)  // the strict decoder requires the field: null
    }
}
