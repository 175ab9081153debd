import NIOCore
import Testing

@testable import WebBridge

@Suite("The per-browser queue of a slow browser")
struct DeliveryQueueTests {
    /// What a queue hands back, as text: "overflow 2", "e3".
    private func drained(_ queue: inout DeliveryQueue<String>) -> [String] {
        queue.becameWritable().map { item in
            switch item {
            case .overflow(let dropped): "overflow \(dropped)"
            case .line(let line): line
            case .controlPong(let data): "\(data) (control)"
            }
        }
    }

    @Test("lines pass straight through while the browser takes data")
    func flowing() {
        var queue = DeliveryQueue<String>(capacity: 2, policy: .dropOldest)
        for index in 1...10 {
            guard case .send(let line) = queue.arrived("e\(index)", kind: .event, size: 10, writable: true) else {
                Issue.record("line \(index) was not sent")
                return
            }
            #expect(line == "e\(index)")
        }
        #expect(drained(&queue).isEmpty)
    }

    @Test("past the capacity the oldest events are dropped and the browser is told how many first; replies stay")
    func dropOldest() {
        var queue = DeliveryQueue<String>(capacity: 3, policy: .dropOldest)
        #expect(queue.arrived("hello", kind: .reply, size: 10, writable: false).isHeld)
        for index in 1...5 {
            #expect(queue.arrived("e\(index)", kind: .event, size: 10, writable: index > 2).isHeld)
        }
        #expect(queue.arrived("pong", kind: .reply, size: 10, writable: true).isHeld)
        #expect(queue.stateDescription == "holding 5 (2 dropped)")
        #expect(drained(&queue) == ["overflow 2", "hello", "e3", "e4", "e5", "pong"])
        // Drained: lines flow again, and the count starts afresh.
        #expect(queue.arrived("e6", kind: .event, size: 10, writable: true).isSent)
        #expect(queue.arrived("e7", kind: .event, size: 10, writable: false).isHeld)
        #expect(drained(&queue) == ["e7"])
    }

    @Test("with slow-client = disconnect, one event too many closes the browser with a reason")
    func disconnect() {
        var queue = DeliveryQueue<String>(capacity: 2, policy: .disconnect)
        #expect(queue.arrived("e1", kind: .event, size: 10, writable: false).isHeld)
        #expect(queue.arrived("e2", kind: .event, size: 10, writable: false).isHeld)
        guard case .disconnect(let reason) = queue.arrived("e3", kind: .event, size: 10, writable: false) else {
            Issue.record("not disconnected")
            return
        }
        #expect(reason == "too slow: 3 events unread")
        // Closed: nothing more is sent, even once the socket drains.
        #expect(queue.arrived("e4", kind: .event, size: 10, writable: true).isHeld)
        #expect(drained(&queue).isEmpty)
    }

    @Test("replies are never dropped, but more than the reply limit unread closes the browser")
    func replyLimit() {
        var queue = DeliveryQueue<String>(capacity: 1, policy: .dropOldest, replyLimit: 10)
        for _ in 1...10 {
            #expect(queue.arrived("status", kind: .reply, size: 10, writable: false).isHeld)
        }
        guard case .disconnect(let reason) = queue.arrived("status", kind: .reply, size: 10, writable: false) else {
            Issue.record("not disconnected")
            return
        }
        #expect(reason.contains("replies unread"))
    }

    /// Issue 22, finding 1: a browser that stops reading and sends thousands of pings kept
    /// one `pong` each at the front of its queue, so every later event scanned past them
    /// and shifted the queue (96 % CPU, a healthy browser lost 25 121 events in 30 s). On
    /// the code before issue 22 pongs were replies held one each: this test's 10 000 pongs
    /// would be 10 000 lines held (and past 1 MiB the browser closed). Now only the latest
    /// pong and the latest WebSocket pong frame are kept, and the events behind them are
    /// dropped oldest-first in O(1).
    @Test("pongs are coalesced: a browser that pings without reading holds one of each")
    func pongsAreCoalesced() {
        var queue = DeliveryQueue<String>(capacity: 3, policy: .dropOldest)
        #expect(queue.arrived("e0", kind: .event, size: 10, writable: false).isHeld)
        for index in 1...10_000 {
            #expect(queue.arrived("pong\(index)", kind: .pong, size: 30, writable: false).isHeld)
            #expect(queue.arrived("frame\(index)", kind: .controlPong, size: 4, writable: false).isHeld)
        }
        for index in 1...5 {
            #expect(queue.arrived("e\(index)", kind: .event, size: 10, writable: false).isHeld)
        }
        #expect(queue.heldBytes == 30 + 4 + 3 * 10)
        #expect(queue.stateDescription == "holding 5 (3 dropped)")
        #expect(drained(&queue) == ["overflow 3", "pong10000", "frame10000 (control)", "e3", "e4", "e5"])
    }

    /// Issue 22, finding 2: replies, pongs and events all count against one byte budget
    /// per browser; past it the oldest events go, and when replies alone are over it the
    /// browser is closed. On the code before issue 22 only event counts and reply bytes
    /// were bounded: 1 000 events of 10 KiB were all held (10 MiB).
    @Test("everything held counts against the browser's byte budget")
    func byteBudget() {
        var queue = DeliveryQueue<String>(capacity: 1_000, policy: .dropOldest, byteLimit: 100_000)
        for index in 1...1_000 {
            #expect(queue.arrived("e\(index)", kind: .event, size: 10_240, writable: false).isHeld)
            #expect(queue.heldBytes <= 100_000)
        }
        #expect(queue.stateDescription == "holding 9 (991 dropped)")
        var replies = DeliveryQueue<String>(capacity: 1_000, policy: .dropOldest, byteLimit: 100_000)
        for _ in 1...9 {
            #expect(replies.arrived("status", kind: .reply, size: 10_240, writable: false).isHeld)
        }
        guard case .disconnect(let reason) = replies.arrived("status", kind: .reply, size: 10_240, writable: false) else {
            Issue.record("not disconnected")
            return
        }
        #expect(reason == "too slow: more than 100000 bytes unread")
    }
}

extension DeliveryQueue.Arrival {
    var isHeld: Bool {
        if case .held = self { return true }
        return false
    }

    var isSent: Bool {
        if case .send = self { return true }
        return false
    }
}
