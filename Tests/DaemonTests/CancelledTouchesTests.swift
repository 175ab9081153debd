import Daemon
import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// A device that goes, or is reloaded, with a finger down, through the real daemon and
/// socket: the touch a client was sent as `began` ends `cancelled` after the gestures it
/// carried (before the device's `removed` line), and the daemon knows no finger is down, so
/// it still goes idle when that finger lifts unseen. The verdicts compare the order of
/// lines, never times. The daemon cancels at its own clock, past the script's long-press
/// deadline, so the long press the held finger made comes and goes first.
@Suite struct CancelledTouchesTests {
    /// Down at 1 s and still down: a touch's touch-down alone.
    static let touchDown = Array(ScriptedPipelineSource.touch(id: 1, down: 1_000_000, up: 1_100_000).dropLast(2))
    /// Its lift alone.
    static let lift = Array(ScriptedPipelineSource.touch(id: 1, down: 1_000_000, up: 1_100_000).suffix(2))

    /// Starts a daemon with `screen`, subscribes to touches; `idle`: the daemon's idle timeout
    /// (the client waits for the first `idle` line).
    static func start(_ screen: ScriptedPipelineSource, idle: TimeSpan = .zero) throws -> (InProcessDaemon, LineClient) {
        let daemon = try InProcessDaemon(idleTimeout: idle, devices: [screen])
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        if idle != .zero { #expect(try client.readMessage(\.activity).phase == .idle) }
        try client.send(#"{"type":"subscribe","touches":true}"# + "\n" + #"{"type":"ping"}"# + "\n")
        _ = try client.readMessage(\.pong)
        return (daemon, client)
    }

    /// The summaries of the lines `client` reads up to the first `kind` line for which `last`
    /// is true.
    static func lines<Value>(of client: LineClient, through kind: KeyPath<ServerMessage, Value?>, _ last: (Value) -> Bool) throws
        -> [String]
    {
        var lines: [String] = []
        while true {
            let message = try client.readMessage()
            if case .device(let device) = message {
                lines.append("device \(device.phase)")
            } else if let summary = HygieneFramesTests.summary(message) {
                lines.append(summary)
            }
            if let value = message[keyPath: kind], last(value) { return lines }
        }
    }

    @Test func aTouchDownWhenItsDeviceIsUnpluggedEndsCancelledBeforeTheDeviceGoes() throws {
        let screen = try ScriptedPipelineSource(touch: TouchHygieneSettings())
        screen.script[1] = Self.touchDown
        let (daemon, client) = try Self.start(screen)
        defer { daemon.stop() }
        screen.trigger(1)
        screen.trigger(ScriptedPipelineSource.unplug)
        let lines = try Self.lines(of: client, through: \.device) { $0.phase == .removed }
        #expect(
            lines == [
                "gesture press began", "touch began", "gesture long-press began", "gesture long-press cancelled",
                "gesture press cancelled", "touch cancelled", "device removed",
            ])
    }

    /// After a reload the new pipeline never saw the finger go down, and a lift without a
    /// movement before it makes no frame: only the reload's cancelled frame can tell the idle
    /// watch that the finger is gone.
    @Test func aTouchDownAcrossAReloadEndsCancelledAndTheDaemonStillGoesIdle() throws {
        let screen = try ScriptedPipelineSource(touch: TouchHygieneSettings())
        screen.script[1] = Self.touchDown
        screen.script[2] = Self.lift
        let (daemon, client) = try Self.start(screen, idle: .seconds(0.2))
        defer { daemon.stop() }
        screen.trigger(1)
        screen.trigger(ScriptedPipelineSource.reload)
        screen.trigger(2)
        let lines = try Self.lines(of: client, through: \.activity) { $0.phase == .idle }
        #expect(
            lines == [
                "activity active", "gesture press began", "touch began", "gesture long-press began",
                "gesture long-press cancelled", "gesture press cancelled", "touch cancelled", "activity idle",
            ])
    }
}
