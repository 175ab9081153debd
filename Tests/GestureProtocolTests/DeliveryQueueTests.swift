import GestureProtocol
import PropertyBased
import Testing

/// The one slow-client queue (docs/protocol.md "Limits and slow clients"), driven directly:
/// no sockets, no clock.
@Suite struct DeliveryQueueTests {
    /// What a queue hands back, as text: "overflow 2", "e3", "p (control)".
    private func drained(_ queue: inout DeliveryQueue<String>) -> [String] {
        queue.becameWritable().map { item in
            switch item {
            case .overflow(let dropped): "overflow \(dropped)"
            case .line(let line, .controlPong): "\(line) (control)"
            case .line(let line, _): line
            }
        }
    }

    @Test func linesPassStraightThroughWhileTheConnectionTakesData() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 2, policy: .dropOldest))
        for index in 1...10 {
            guard case .send(let line) = queue.arrived("e\(index)", kind: .event, size: 10, writable: true) else {
                Issue.record("line \(index) was not sent")
                return
            }
            #expect(line == "e\(index)")
        }
        #expect(queue.isFlowing)
        #expect(drained(&queue).isEmpty)
    }

    @Test func pastTheCapacityTheOldestEventsGoAndTheNoticeComesFirst() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 3, policy: .dropOldest))
        #expect(queue.arrived("hello", kind: .reply, size: 10, writable: false).dropping == 0)
        var dropping: [Int] = []
        for index in 1...5 {
            // Once something is held, a writable connection does not overtake it.
            dropping.append(queue.arrived("e\(index)", kind: .event, size: 10, writable: index > 2).dropping ?? -1)
        }
        #expect(dropping == [0, 0, 0, 1, 1])
        #expect(queue.isFull())
        #expect(queue.arrived("status", kind: .reply, size: 10, writable: true).dropping == 0)
        #expect(queue.stateDescription == "holding 5 (2 dropped)")
        #expect(queue.heldBytes == 50)
        #expect(drained(&queue) == ["overflow 2", "hello", "e3", "e4", "e5", "status"])
        #expect(queue.isFlowing)
        #expect(queue.heldBytes == 0)
        #expect(queue.arrived("e6", kind: .event, size: 10, writable: true).sent == "e6")
    }

    @Test func theDisconnectPolicyClosesAConnectionWhoseEventsNoLongerFit() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 3, policy: .disconnect))
        for index in 1...3 {
            #expect(queue.arrived("e\(index)", kind: .event, size: 10, writable: false).dropping == 0)
        }
        guard case .disconnect(let reason) = queue.arrived("e4", kind: .event, size: 10, writable: false) else {
            Issue.record("not disconnected")
            return
        }
        #expect(reason == "too slow: 3 events unread")
        #expect(queue.isClosed)
        #expect(queue.heldBytes == 0)
        #expect(queue.arrived("e5", kind: .event, size: 10, writable: true).isIgnored)
        #expect(queue.next() == nil)
    }

    @Test func repliesAreNeverDroppedButTooManyUnreadCloseTheConnection() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 1, policy: .dropOldest, replies: 10))
        for index in 1...10 {
            #expect(queue.arrived("status\(index)", kind: .reply, size: 10, writable: false).dropping == 0)
            #expect(queue.arrived("e\(index)", kind: .event, size: 10, writable: false).dropping == (index == 1 ? 0 : 1))
        }
        #expect(queue.heldEvents == 1)
        guard case .disconnect(let reason) = queue.arrived("status11", kind: .reply, size: 10, writable: false) else {
            Issue.record("not disconnected")
            return
        }
        #expect(reason == "too slow: more than 10 replies unread")
    }

    /// A client that pings without reading holds one pong, the latest; a WebSocket pong
    /// frame is coalesced apart from the daemon's `pong` lines, and each keeps its place.
    @Test func pongsAreCoalescedToTheLatest() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 8, policy: .dropOldest, replies: 10))
        #expect(queue.arrived("e1", kind: .event, size: 10, writable: false).dropping == 0)
        for index in 1...10_000 {
            #expect(queue.arrived("pong\(index)", kind: .pong, size: 10, writable: false).dropping == 0)
            #expect(queue.arrived("frame\(index)", kind: .controlPong, size: 5, writable: false).dropping == 0)
        }
        #expect(queue.heldBytes == 25)
        #expect(queue.arrived("e2", kind: .event, size: 10, writable: false).dropping == 0)
        #expect(drained(&queue) == ["e1", "pong10000", "frame10000 (control)", "e2"])
    }

    @Test func pastTheByteLimitTheOldestEventsMakeRoomAndRepliesAloneClose() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 1_000, policy: .dropOldest, bytes: 100))
        for index in 1...10 {
            #expect(queue.arrived("e\(index)", kind: .event, size: 10, writable: false).dropping == 0)
        }
        #expect(queue.arrived("status", kind: .reply, size: 30, writable: false).dropping == 3)
        #expect(queue.heldBytes == 100)
        #expect(queue.arrived("metrics", kind: .reply, size: 60, writable: false).dropping == 6)
        guard case .disconnect(let reason) = queue.arrived("status", kind: .reply, size: 20, writable: false) else {
            Issue.record("not disconnected")
            return
        }
        #expect(reason == "too slow: more than 100 bytes unread")
        // With `disconnect`, bytes past the limit close at once.
        var strict = DeliveryQueue<String>(limits: DeliveryLimits(events: 1_000, policy: .disconnect, bytes: 100))
        for index in 1...10 {
            #expect(strict.arrived("e\(index)", kind: .event, size: 10, writable: false).dropping == 0)
        }
        #expect(strict.arrived("e11", kind: .event, size: 10, writable: false).isDisconnect)
    }

    /// The daemon's shared `queue-memory`: a connection over its share takes no more
    /// events (the oldest goes, or this one when nothing older is held) and is closed
    /// when it asks for a reply it cannot take.
    @Test func aConnectionOverItsShareIsTreatedAsFull() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 100, policy: .dropOldest))
        #expect(queue.isFull(overShare: true))
        guard case .dropped(let older) = queue.arrived("e1", kind: .event, size: 10, writable: true, overShare: true) else {
            Issue.record("not dropped")
            return
        }
        #expect(older == 0)
        #expect(queue.arrived("e2", kind: .event, size: 10, writable: false).dropping == 0)
        #expect(queue.arrived("e3", kind: .event, size: 10, writable: false, overShare: true).dropping == 1)
        #expect(queue.arrived("status", kind: .reply, size: 10, writable: true, overShare: true).dropping == 0)
        #expect(drained(&queue) == ["overflow 2", "e3", "status"])
        #expect(queue.arrived("status", kind: .reply, size: 10, writable: true, overShare: true).sent == "status")
        #expect(queue.arrived("status", kind: .reply, size: 10, writable: false, overShare: true).isDisconnect)
    }

    @Test func closingDropsWhatIsHeld() {
        var queue = DeliveryQueue<String>(limits: DeliveryLimits(events: 4, policy: .dropOldest))
        _ = queue.arrived("e1", kind: .event, size: 10, writable: false)
        #expect(queue.heldBytes == 10)
        queue.close()
        #expect(queue.heldBytes == 0)
        #expect(queue.stateDescription == "closed")
        #expect(queue.becameWritable().isEmpty)
    }

    /// Against a model, for random arrivals and writes: nothing is reordered or duplicated,
    /// every event is either written or counted by an overflow notice that comes before the
    /// next one written, replies are all written, and the limits hold.
    @Test func everyEventIsWrittenOrCountedAndTheLimitsHold() async {
        let steps = Gen.uint64(in: 0...UInt64.max).array(of: 1...300)
        await propertyCheck(count: 300, input: steps) { numbers in
            let limits = DeliveryLimits(events: 1 + Int(numbers[0] % 8), policy: .dropOldest, bytes: 200)
            var queue = DeliveryQueue<Int>(limits: limits)
            var arrivedEvents = 0
            var arrivedReplies: [Int] = []
            var writtenEvents = 0
            var writtenReplies: [Int] = []
            var noticed: UInt64 = 0
            var lastWritten = -1
            func write(_ line: Int) {
                #expect(line > lastWritten, "in order")
                lastWritten = line
                if line % 2 == 0 { writtenEvents += 1 } else { writtenReplies.append(line) }
            }
            for (index, number) in numbers.dropFirst().enumerated() {
                let line = index * 2 + (number % 5 == 0 ? 1 : 0)  // odd: a reply
                let size = 1 + Int((number >> 8) % 40)
                if number % 7 == 0 {
                    while let item = queue.next() {
                        switch item {
                        case .overflow(let dropped): noticed += dropped
                        case .line(let held, _): write(held)
                        }
                    }
                    continue
                }
                if line % 2 == 0 { arrivedEvents += 1 } else { arrivedReplies.append(line) }
                switch queue.arrived(line, kind: line % 2 == 0 ? .event : .reply, size: size, writable: number % 3 == 0) {
                case .send(let sent): write(sent)
                case .held, .dropped: break
                case .disconnect(let reason):
                    #expect(reason.hasPrefix("too slow: more than 200 bytes"), "only replies past the bytes close")
                    return
                case .ignored: Issue.record("ignored while open")
                }
                #expect(queue.heldEvents <= limits.events)
                #expect(queue.heldBytes <= limits.bytes)
            }
            while let item = queue.next() {
                switch item {
                case .overflow(let dropped): noticed += dropped
                case .line(let held, _): write(held)
                }
            }
            #expect(UInt64(writtenEvents) + noticed == UInt64(arrivedEvents))
            #expect(writtenReplies == arrivedReplies)
        }
    }

    /// One classification: the lines that carry `seq` (activity among them) are events.
    /// (The bridge classed `activity` as a reply, the daemon as an event.)
    @Test func theLinesThatCarrySeqAreEventsActivityAmongThem() async {
        #expect(DeliveryKind(type: "activity") == .event)
        #expect(DeliveryKind(line: Array(#"{"type":"activity","phase":"idle","seq":3,"time":1}"#.utf8)) == .event)
        #expect(DeliveryKind(line: Array(#"{"type":"pong","time":1}"#.utf8)) == .pong)
        #expect(DeliveryKind(line: Array(#"{"type":"gesturesque","seq":1}"#.utf8)) == .reply)
        #expect(DeliveryKind(line: Array(#"{ "type":"gesture"}"#.utf8)) == .reply, "not a line the daemon writes")
        #expect(DeliveryKind(line: [UInt8]()) == .reply)
        await propertyCheck(count: 1000, input: RoundTripTests.draws) { numbers in
            var draw = Draw(numbers)
            let message = draw.serverMessage()
            let expected: DeliveryKind =
                switch message {
                case .gesture, .touch, .device, .activity: .event
                case .pong: .pong
                case .hello, .status, .metrics, .error, .overflow, .goodbye, .unknown: .reply
                }
            let line = WireEncoder.encode(message)
            #expect(DeliveryKind(line: line) == expected, "\(String(decoding: line, as: UTF8.self))")
            #expect(line.contains(subsequence: Array(#","seq":"#.utf8)) == (expected == .event))
        }
    }
}

extension DeliveryQueue.Arrival {
    /// Older events dropped for a line that was held; nil when it was not held.
    var dropping: Int? {
        if case .held(let dropping) = self { return dropping }
        return nil
    }

    var sent: Line? {
        if case .send(let line) = self { return line }
        return nil
    }

    var isDisconnect: Bool {
        if case .disconnect = self { return true }
        return false
    }

    var isIgnored: Bool {
        if case .ignored = self { return true }
        return false
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { self[$0..<($0 + subsequence.count)].elementsEqual(subsequence) }
    }
}
