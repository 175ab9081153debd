import Daemon
import GestureClient
import Testing

@Suite struct GestureClientOverTheSocketTests {
    @Test func decodesTypedMessages() async throws {
        let screen = PipeSource(name: "ELAN Touchscreen")
        screen.script[1] = [tap(region: "ok-button"), drag(.began)]
        let daemon = try InProcessDaemon(devices: [screen])
        let client = try GestureClient.connect(path: daemon.socketPath)
        try client.subscribe(gestures: ["tap", "drag"])
        try client.ping()
        var iterator = client.messages.makeAsyncIterator()
        guard case .hello(let hello)? = try await iterator.next() else { Issue.record("no hello"); return }
        #expect(hello.protocol == 1)
        guard case .pong? = try await iterator.next() else { Issue.record("no pong"); return }
        screen.trigger(1)
        guard case .gesture(let tapped)? = try await iterator.next() else { Issue.record("no tap"); return }
        #expect(tapped.gesture == "tap")
        #expect(tapped.region == "ok-button")
        #expect(tapped.count == 1)
        #expect(tapped.seq == 1)
        guard case .gesture(let dragged)? = try await iterator.next() else { Issue.record("no drag"); return }
        #expect(dragged.startLocation == Location(x: 0.2, y: 0.7))
        #expect(dragged.localStartLocation == Location(x: 0.2, y: 0.4))
        #expect(dragged.localLocation == Location(x: 0.25, y: 0.5))
        #expect(tapped.localLocation == nil && tapped.localStartLocation == nil)
        #expect(dragged.seq == 2)
        daemon.stop()
        // Every device's removal comes before the goodbye, which is the last message.
        var afterStop: [ServerMessage] = []
        while let message = try await iterator.next() { afterStop.append(message) }
        guard case .goodbye(let reason)? = afterStop.last else { Issue.record("no goodbye last: \(afterStop)"); return }
        #expect(reason == "stopping")
        #expect(afterStop.dropLast().allSatisfy { if case .device(let d) = $0 { d.phase == "removed" } else { false } })
        #expect(!afterStop.dropLast().isEmpty)
    }

    @Test func missingSocketSaysTheDaemonIsNotRunning() {
        let directory = TemporaryDirectory()
        #expect(throws: ConnectionError.notRunning(path: directory.file("none.sock"))) {
            _ = try GestureClient.connect(path: directory.file("none.sock"))
        }
    }
}
