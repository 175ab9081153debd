import Foundation
import GestureCore
import GestureTestSupport
import Glibc
import Testing

/// `[daemon] idle-timeout` through `gestured run --replay`: the verdicts compare the
/// daemon's own stamps and the order of lines, never how long anything took.
@Suite struct ActivityTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path
    static let timeoutMicroseconds = 500_000

    /// Idle before anyone touches; `active` when the replay's first touch is read, before any
    /// line of that touch; idle again one timeout after the last touch (what `status`
    /// reports); a client connecting while idle is told at once.
    @Test func idleActiveIdleAroundAReplay() throws {
        let daemon = try DaemonProcess(
            extraArguments: ["--replay", Self.demo, "--speed", "20", "--wait-for-subscriber"],
            configuration: "[daemon]\nidle-timeout = 0.5\n")
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(ofType: "hello")
        // Nobody subscribed, so nothing plays: the daemon goes idle.
        let firstIdle = try client.readMessage(ofType: "activity")
        #expect(firstIdle["phase"] as? String == "idle")
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n")

        var lines: [[String: Any]] = []
        var activities: [[String: Any]] = []
        while activities.count < 2 {
            let message = try client.readMessage()
            lines.append(message)
            if message["type"] as? String == "activity" { activities.append(message) }
        }
        #expect(activities.map { $0["phase"] as? String } == ["active", "idle"])
        let kinds = lines.map { $0["type"] as? String ?? "?" }
        let activeIndex = try #require(kinds.firstIndex(of: "activity"))
        let firstTouch = try #require(kinds.firstIndex { $0 == "touch" || $0 == "gesture" })
        #expect(activeIndex < firstTouch, "active comes before the waking touch's lines: \(kinds.prefix(5))")
        let lastTouch = try #require(kinds.lastIndex { $0 == "touch" })
        #expect(lastTouch < kinds.count - 1 && kinds.last == "activity", "idle comes after every touch")
        let seqs = lines.compactMap { $0["seq"] as? Int }
        #expect(
            seqs.count == lines.count && seqs == seqs.sorted() && Set(seqs).count == seqs.count,
            "activity lines are numbered with the events")
        let idleTime = try #require(activities[1]["time"] as? Int)
        let activeTime = try #require(activities[0]["time"] as? Int)
        #expect(idleTime >= activeTime + Self.timeoutMicroseconds)

        try client.send(#"{"type":"status"}"# + "\n")
        let status = try client.readMessage(ofType: "status")
        let statusLastTouch = try #require(status["lastTouch"] as? Int)
        #expect(statusLastTouch + Self.timeoutMicroseconds == idleTime)

        let late = try LineClient(path: daemon.socketPath)
        _ = try late.readMessage(ofType: "hello")
        let told = try late.readMessage()
        #expect(told["type"] as? String == "activity" && told["phase"] as? String == "idle")
        #expect(told["time"] as? Int == idleTime)
        #expect(told["seq"] as? Int == 1)

        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// The daemon's half of `wake-swallow`: going idle calls `Daemon.wentIdle` (which
    /// `LiveDevices` hands to every pass-through device) once the `idle` line is out. The
    /// devices' half needs evdev and uinput: the VM's "pass-through: wake-swallow" case.
    @Test func goingIdleCallsWentIdle() throws {
        let called = DispatchSemaphore(value: 0)
        let daemon = try InProcessDaemon(idleTimeout: .seconds(0.2)) { called.signal() }
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(ofType: "hello")
        let idle = try client.readMessage(ofType: "activity")
        #expect(idle["phase"] as? String == "idle")
        #expect(called.wait(timeout: .now() + .seconds(10)) == .success, "wentIdle was not called")
        daemon.stop()
    }

    /// Before any touch, `status` says so with `null`.
    @Test func statusHasNoLastTouchBeforeTheFirst() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.notify.wait(for: "READY=1")
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(ofType: "hello")
        try client.send(#"{"type":"status"}"# + "\n")
        let status = try client.readMessage(ofType: "status")
        #expect(status["lastTouch"] is NSNull)
    }
}
