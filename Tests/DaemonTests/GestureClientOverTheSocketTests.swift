import Daemon
import GestureClient
import GestureProtocol
import GestureTestSupport
import SystemCalls
import Testing

@Suite struct GestureClientOverTheSocketTests {
    @Test func decodesTypedMessages() async throws {
        let screen = try PipeSource(name: "ELAN Touchscreen")
        screen.script[1] = [tap(region: "ok-button"), drag(.began)]
        let daemon = try InProcessDaemon(devices: [screen])
        let client = try GestureClient.connect(path: daemon.socketPath)
        try client.subscribe(gestures: [.tap, .drag])
        try client.ping()
        var iterator = client.messages.makeAsyncIterator()
        guard case .hello(let hello)? = try await iterator.next() else {
            Issue.record("no hello")
            return
        }
        #expect(hello.protocol == 1)
        guard case .pong? = try await iterator.next() else {
            Issue.record("no pong")
            return
        }
        screen.trigger(1)
        guard case .gesture(let tapped)? = try await iterator.next() else {
            Issue.record("no tap")
            return
        }
        #expect(tapped.gesture == .tap)
        #expect(tapped.region == "ok-button")
        #expect(tapped.count == 1)
        #expect(tapped.seq == 1)
        guard case .gesture(let dragged)? = try await iterator.next() else {
            Issue.record("no drag")
            return
        }
        #expect(dragged.drag?.startLocation == Point(x: 0.2, y: 0.7))
        #expect(dragged.drag?.localStartLocation == Point(x: 0.2, y: 0.4))
        #expect(dragged.localLocation == Point(x: 0.25, y: 0.5))
        #expect(tapped.localLocation == nil && tapped.drag == nil)
        #expect(dragged.seq == 2)
        daemon.stop()
        // Every device's removal comes before the goodbye, which is the last message.
        var afterStop: [ServerMessage] = []
        while let message = try await iterator.next() { afterStop.append(message) }
        guard case .goodbye(let reason)? = afterStop.last else {
            Issue.record("no goodbye last: \(afterStop)")
            return
        }
        #expect(reason == "stopping")
        #expect(afterStop.dropLast().allSatisfy { if case .device(let d) = $0 { d.phase == .removed } else { false } })
        #expect(!afterStop.dropLast().isEmpty)
    }

    /// The subscribe request as the daemon reads it: a region filter of `nil` (gestures
    /// outside every region) goes out as `null`, so each client gets only its own tap.
    @Test func regionFilterWithNilSelectsGesturesOutsideEveryRegion() async throws {
        let screen = try PipeSource(name: "ELAN Touchscreen")
        screen.script[1] = [tap(region: "ok-button"), tap(region: nil), drag(.began)]
        let daemon = try InProcessDaemon(devices: [screen])
        let outside = try GestureClient.connect(path: daemon.socketPath)
        let inButton = try GestureClient.connect(path: daemon.socketPath)
        try outside.subscribe(regions: [nil])
        try inButton.subscribe(gestures: [.tap, .drag], regions: ["ok-button"])
        // A ping answered means the subscribe before it was applied.
        try outside.ping()
        try inButton.ping()
        var outsideMessages = outside.messages.makeAsyncIterator()
        var inButtonMessages = inButton.messages.makeAsyncIterator()
        #expect(try await skipPastPong(&outsideMessages))
        #expect(try await skipPastPong(&inButtonMessages))
        screen.trigger(1)
        daemon.stop()
        // The stop ends both streams (goodbye, then end of file), so reading to the end
        // cannot wait for a gesture that never comes.
        let outsideGestures = try await gestures(until: &outsideMessages)
        let inButtonGestures = try await gestures(until: &inButtonMessages)
        #expect(outsideGestures.map(\.gesture) == [.tap])
        #expect(outsideGestures.map(\.region) == [nil])
        #expect(inButtonGestures.map(\.gesture) == [.tap])
        #expect(inButtonGestures.map(\.region) == ["ok-button"])
    }

    @Test func missingSocketSaysTheDaemonIsNotRunning() {
        let directory = TemporaryDirectory()
        #expect(throws: ConnectionError.notRunning(path: directory.file("none.sock"))) {
            _ = try GestureClient.connect(path: directory.file("none.sock"))
        }
    }
}

/// Reads up to and including the `pong`; false when the stream ends first.
private func skipPastPong<Messages: AsyncIteratorProtocol>(_ messages: inout Messages) async throws -> Bool
where Messages.Element == ServerMessage {
    while let message = try await messages.next() {
        if case .pong = message { return true }
    }
    return false
}

/// Every gesture until the stream ends.
private func gestures<Messages: AsyncIteratorProtocol>(until messages: inout Messages) async throws -> [GestureMessage]
where Messages.Element == ServerMessage {
    var gestures: [GestureMessage] = []
    while let message = try await messages.next() {
        if case .gesture(let gesture) = message { gestures.append(gesture) }
    }
    return gestures
}
