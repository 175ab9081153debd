import Daemon
import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import SystemCalls
import Testing

@Suite struct SocketServerTests {
    @Test func greetsWithHelloListingDevices() throws {
        let screen = try PipeSource(name: "ELAN Touchscreen")
        let daemon = try InProcessDaemon(devices: [screen])
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(try client.readMessage().hello)
        #expect(hello.protocol == 1)
        #expect(hello.server == "gestured")
        #expect(hello.devices.map(\.name) == ["ELAN Touchscreen", "control"])
    }

    @Test func answersPingAndStatus() throws {
        let daemon = try InProcessDaemon()
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send("{\"type\":\"ping\"}\n{\"type\":\"status\"}\n")
        #expect(try client.readMessage().pong != nil)
        let status = try #require(try client.readMessage().status)
        #expect(status.clients == 1)
        #expect(status.counters.connections == 1)
    }

    @Test(arguments: [
        ("not json", "malformed JSON"),
        ("[1,2]", "a request must be a JSON object"),
        ("{\"type\":\"launch-missiles\"}", "unknown request type \"launch-missiles\""),
        ("{\"type\":\"subscribe\",\"gestures\":[\"wave\"]}", "unknown gesture \"wave\""),
        ("{\"type\":\"subscribe\",\"touches\":1}", "\"touches\" must be true or false"),
        ("{\"type\":\"subscribe\",\"colour\":\"red\"}", "unknown subscribe field \"colour\""),
        ("{\"type\":\"ping\",\"id\":7}", "unknown ping field \"id\""),
        ("{\"type\":\"status\",\"verbose\":true}", "unknown status field \"verbose\""),
    ])
    func badRequestGetsAnErrorAndTheConnectionStays(request: String, message: String) throws {
        let daemon = try InProcessDaemon()
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(request + "\n")
        let error = try #require(try client.readMessage().error)
        #expect(error.hasPrefix(message), "\(error)")
        try client.sync()
    }

    @Test func overlongLineIsAnErrorAndAClose() throws {
        let daemon = try InProcessDaemon()
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send(String(repeating: "x", count: 70 * 1024))
        let error = try #require(try client.readMessage().error)
        #expect(error.contains("longer than"))
        #expect(client.readsEndOfStream())
        // The daemon still serves others.
        let other = try LineClient(path: daemon.socketPath)
        _ = try other.readMessage(\.hello)
        try other.sync()
    }

    @Test func eventsCarryPerConnectionSeqAndFollowSubscriptions() throws {
        let screen = try PipeSource(name: "ELAN Touchscreen")
        screen.script[1] = [tap(region: "button"), drag(.began), drag(.ended)]
        let daemon = try InProcessDaemon(devices: [screen])
        let all = try LineClient(path: daemon.socketPath)
        let drags = try LineClient(path: daemon.socketPath)
        let elsewhere = try LineClient(path: daemon.socketPath)
        for client in [all, drags, elsewhere] { _ = try client.readMessage(\.hello) }
        try drags.send("{\"type\":\"subscribe\",\"gestures\":[\"drag\"],\"regions\":[\"panel\"]}\n")
        try elsewhere.send("{\"type\":\"subscribe\",\"devices\":[\"Other Device\"]}\n")
        try drags.sync()
        try elsewhere.sync()
        screen.trigger(1)

        let first = try all.readMessage(\.gesture)
        #expect(first.gesture == .tap)
        #expect(first.seq == 1)
        #expect(first.device == "ELAN Touchscreen")
        #expect(first.region == "button")
        #expect(first.count == 1)
        let second = try all.readMessage(\.gesture)
        #expect(second.seq == 2)
        #expect(second.gesture == .drag)

        let drag1 = try drags.readMessage(\.gesture)
        #expect(drag1.gesture == .drag)
        #expect(drag1.phase == .began)
        #expect(drag1.seq == 1)
        #expect(drag1.drag?.startLocation.x == 0.2)
        let drag2 = try drags.readMessage(\.gesture)
        #expect(drag2.phase == .ended)
        #expect(drag2.id != drag1.id)
        #expect(drag2.seq == 2)

        // Nothing reached the client filtering on another device: its next line is the pong.
        try elsewhere.send("{\"type\":\"ping\"}\n")
        #expect(try elsewhere.readMessage().pong != nil)
    }

    @Test func halfClosedClientStillReceivesEvents() throws {
        let screen = try PipeSource(name: "screen")
        screen.script[1] = [tap()]
        let daemon = try InProcessDaemon(devices: [screen])
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        try client.send("{\"type\":\"subscribe\",\"gestures\":[\"tap\"]}\n")
        try client.sync()
        client.shutdownWrite()
        // A status request from another client proves the shutdown was seen before the event.
        let observer = try LineClient(path: daemon.socketPath)
        _ = try observer.readMessage(\.hello)
        screen.trigger(1)
        #expect(try client.readMessage(\.gesture).gesture == .tap)
    }

    /// A screen that sends 500 drag changes per trigger, a daemon with `policy`, a client
    /// that does not read (the sleeper) and one that does (the reader, past its `hello`).
    /// A burst of 500 fits the reader's queue (512) whatever its pace: a client whose socket
    /// is full is not written to again until it is writable, so within one burst only its
    /// queue holds what it has not read yet.
    private func sleeperAndReader(
        policy: SlowClientPolicy
    ) throws -> (daemon: InProcessDaemon, screen: PipeSource, sleeper: LineClient, reader: LineClient) {
        let screen = try PipeSource(name: "screen")
        screen.script[1] = Array(repeating: drag(.changed), count: 500)
        var settings = DaemonSettings()
        settings.clientQueueLength = 512
        settings.slowClientPolicy = policy
        let daemon = try InProcessDaemon(settings: settings, devices: [screen])
        let sleeper = try LineClient(path: daemon.socketPath)
        let reader = try LineClient(path: daemon.socketPath)
        _ = try reader.readMessage(\.hello)
        return (daemon, screen, sleeper, reader)
    }

    @Test func neverReadingClientLosesOldestEventsAndIsToldHowMany() throws {
        let (daemon, screen, sleeper, reader) = try sleeperAndReader(policy: .dropOldest)
        defer { extendLifetime(daemon) }  // serving until the test's end
        // The sleeper never reads until the reader got everything from 40 bursts (20 000 events,
        // far beyond its socket buffer and queue).
        for burst in 0..<40 {
            screen.trigger(1)
            for i in 0..<500 {
                let event = try reader.readMessage(\.gesture)
                #expect(event.seq == UInt64(burst * 500 + i + 1))
            }
        }
        try reader.send("{\"type\":\"status\"}\n")
        let status = try reader.readMessage(\.status)
        #expect(status.counters.dropped > 0)
        // Now the sleeper catches up: what its socket buffer held, an overflow notice, then
        // the queue. Every event is either received or counted as dropped, and `seq` skips
        // exactly the dropped ones (docs/protocol.md): the last event is number 20 000.
        var dropped: UInt64 = 0
        var droppedSinceLast: UInt64 = 0
        var received: UInt64 = 0
        var lastSeq: UInt64 = 0
        while dropped + received < 20_000 {
            switch try sleeper.readMessage() {
            case .overflow(let count):
                dropped += count
                droppedSinceLast += count
            case .gesture(let gesture):
                received += 1
                #expect(gesture.seq == lastSeq + droppedSinceLast + 1, "seq skips the dropped events, no more")
                lastSeq = gesture.seq
                droppedSinceLast = 0
            case .hello, .touch, .device, .activity, .pong, .status, .metrics, .error, .goodbye, .unknown:
                continue
            }
        }
        #expect(dropped > 0)
        #expect(dropped + received == 20_000)
        #expect(lastSeq == 20_000)
        #expect(received >= 512)
    }

    /// A client that pings without reading holds one pong, the latest, and its replies keep
    /// their place behind the events queued before them (docs/protocol.md "Limits and slow
    /// clients": one `DeliveryQueue` for the daemon and the bridge). On the earlier
    /// code it got 100 pongs, ahead of its queued events.
    @Test func aClientThatPingsWithoutReadingHoldsOnePongInItsPlace() throws {
        let (daemon, screen, sleeper, reader) = try sleeperAndReader(policy: DaemonSettings().slowClientPolicy)
        defer { extendLifetime(daemon) }  // serving until the test's end
        // Once the reader has 4 000 events, so has the sleeper's queue (its socket buffer
        // takes a fraction of them): it holds lines when its requests arrive, in one read.
        for _ in 0..<8 {
            screen.trigger(1)
            for _ in 0..<500 { _ = try reader.readMessage(\.gesture) }
        }
        try sleeper.send(String(repeating: "{\"type\":\"ping\"}\n", count: 100) + "{\"type\":\"status\"}\n")
        var kinds: [String] = []
        while kinds.last != "status" {
            kinds.append(try sleeper.readMessage().type)
        }
        #expect(kinds.filter { $0 == "pong" }.count == 1)
        let pong = try #require(kinds.firstIndex(of: "pong"))
        #expect(kinds[pong - 1] == "gesture", "the pong comes after the events queued before it: \(kinds.suffix(3))")
        #expect(kinds[pong + 1] == "status")
        #expect(kinds.contains("overflow"), "the sleeper's queue was full")
    }

    @Test func slowClientIsDisconnectedUnderTheDisconnectPolicy() throws {
        let (daemon, screen, sleeper, reader) = try sleeperAndReader(policy: .disconnect)
        defer { extendLifetime(daemon) }  // serving until the test's end
        for _ in 0..<40 {
            screen.trigger(1)
            for _ in 0..<500 { _ = try reader.readMessage(\.gesture) }
        }
        try reader.send("{\"type\":\"status\"}\n")
        let status = try reader.readMessage(\.status)
        #expect(status.counters.slowDisconnects == 1)
        #expect(status.clients == 1)
        #expect(sleeper.readsEndOfStream())
    }

    @Test func hundredsOfClientsAndTheLimit() throws {
        var settings = DaemonSettings()
        settings.maxClients = 300
        let screen = try PipeSource(name: "screen")
        screen.script[1] = [tap()]
        let daemon = try InProcessDaemon(settings: settings, devices: [screen])
        var clients: [LineClient] = []
        for _ in 0..<300 {
            let client = try LineClient(path: daemon.socketPath)
            _ = try client.readMessage(\.hello)
            clients.append(client)
        }
        let refused = try LineClient(path: daemon.socketPath)
        let error = try #require(try refused.readMessage().error)
        #expect(error.contains("too many clients"))
        #expect(refused.readsEndOfStream())
        screen.trigger(1)
        for client in clients {
            #expect(try client.readMessage(\.gesture).seq == 1)
        }
    }

    @Test func stopSaysGoodbyeAndRemovesTheSocket() throws {
        let daemon = try InProcessDaemon()
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        daemon.stop()
        // Stopping removes the devices first: their removal (and any cancellation) is
        // delivered before the goodbye, which is the last line.
        #expect(try client.readMessage().device?.phase == .removed)
        #expect(try client.readMessage().goodbye == "stopping")
        #expect(client.readsEndOfStream())
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func staleSocketIsReplacedButALiveOneIsNot() throws {
        let daemon = try InProcessDaemon()
        #expect(throws: SystemError.self) {
            _ = try UnixListener(path: daemon.socketPath, mode: 0o600, group: nil)
        }
        let directory = TemporaryDirectory()
        let path = directory.file("stale.sock")
        // A bound socket nobody listens on: what a crashed daemon leaves behind.
        try UnixSocket.bind(.stream, to: path).close()
        let listener = try UnixListener(path: path, mode: 0o640, group: nil)
        var info = stat()
        stat(path, &info)
        #expect(info.st_mode & 0o777 == 0o640)
        listener.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
