import Daemon
import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// Touch hygiene's deadline frames (a held touch accepted, a stuck one ended) through the
/// real daemon and socket, fired inside `feed` as when the daemon reads input queued past a
/// deadline: `active` comes before the frame's gestures, its `touch` lines after them, and
/// `metrics` counts it. The verdicts compare the order of lines and counts, never times.
@Suite struct HygieneFramesTests {
    /// What a line says, for comparing orders: `activity active`, `gesture press began`,
    /// `touch began`; nil for the other kinds.
    static func summary(_ message: ServerMessage) -> String? {
        switch message {
        case .activity(let activity): "activity \(activity.phase)"
        case .gesture(let gesture): "gesture \(gesture.gesture) \(gesture.phase)"
        case .touch(let touch): "touch \(touch.phase)"
        case .hello, .device, .pong, .status, .metrics, .error, .overflow, .goodbye, .unknown: nil
        }
    }

    /// Runs `events` (fed at once) through a daemon that went idle, with a client that asked
    /// for touches, until a `touch` line of `lastPhase`; returns the summaries of the lines
    /// read and the `metrics` reply's touch-downs.
    static func run(
        _ events: [InputEvent], touch: TouchHygieneSettings, until lastPhase: TouchPhase
    ) throws -> (lines: [String], touchDowns: UInt64?) {
        let screen = try ScriptedPipelineSource(touch: touch)
        screen.script[1] = events
        let daemon = try InProcessDaemon(idleTimeout: .seconds(0.2), devices: [screen])
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        #expect(try client.readMessage(\.activity).phase == .idle)
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n" + #"{"type":"ping"}"# + "\n")
        _ = try client.readMessage(\.pong)
        screen.trigger(1)
        var lines: [String] = []
        while true {
            let message = try client.readMessage()
            if let summary = summary(message) { lines.append(summary) }
            if case .touch(let touch) = message, touch.phase == lastPhase { break }
        }
        try client.send(#"{"type":"metrics"}"# + "\n")
        let metrics = try client.readMessage(\.metrics)
        return (lines, metrics.inputs.first { $0.device == screen.device.name }?.touches)
    }

    @Test func aHeldTouchAcceptedWhileInputArrivesWakesBeforeItsGesturesAndIsSentAndCounted() throws {
        // Down at 1 s, lifted at 1.7 s: hold-duration's deadline (1.3 s) fires when the
        // lift is fed.
        let (lines, touchDowns) = try Self.run(
            ScriptedPipelineSource.touch(id: 1, down: 1_000_000, up: 1_700_000),
            touch: TouchHygieneSettings(holdDuration: .milliseconds(300)), until: .ended)
        #expect(lines.first == "activity active", "\(lines)")
        let acceptance = ["activity active", "gesture press began", "touch began"]
        #expect(lines.filter(acceptance.contains) == acceptance, "\(lines)")
        #expect(lines.last == "touch ended")
        #expect(touchDowns == 1)
    }

    @Test func aStuckTouchEndedWhileInputArrivesIsSentAndCounted() throws {
        // Down at 1 s, resting until 5 s: stuck-after's deadline (3 s) fires when the 5 s
        // report is fed.
        let (lines, touchDowns) = try Self.run(
            ScriptedPipelineSource.touch(id: 1, down: 1_000_000, rest: 5_000_000, up: 6_000_000),
            touch: TouchHygieneSettings(stuckAfter: .seconds(2)), until: .cancelled)
        #expect(lines.first == "activity active", "\(lines)")
        let ending = ["gesture press cancelled", "touch cancelled"]
        #expect(lines.filter(ending.contains) == ending, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("touch") } == ["touch began", "touch cancelled"])
        #expect(touchDowns == 1)
    }
}
