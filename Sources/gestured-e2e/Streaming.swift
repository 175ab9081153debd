import GestureClient
import GestureTestSupport
import Glibc
import SystemCalls

/// Latency figures over a set of samples (microseconds).
struct LatencyFigures: CustomStringConvertible {
    let samples: [Int64]

    func percentile(_ p: Double) -> Int64 {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    var description: String {
        func ms(_ us: Int64) -> String { "\(Double(us / 10) / 100) ms" }
        return "n=\(samples.count) p50=\(ms(percentile(0.5))) p99=\(ms(percentile(0.99))) max=\(ms(samples.max() ?? 0))"
    }
}

/// Drives `fingers` fingers (evenly spaced) round a circle for `frames` frames, `interval` ms apart, while
/// reading every subscriber in `readers` (never reading `stalled` ones), all in one
/// thread: poll the readers until the next frame is due, write it, repeat. Returns, per
/// reader, what it received (hello excluded) once the line has been quiet for a second.
func streamCircle(on panel: TouchPanel, frames: Int, interval: Double, readers: [Subscriber], fingers: Int = 1) throws(CaseFailure)
    -> [[Received]]
{
    var received = Array(repeating: [Received](), count: readers.count)
    var descriptors = readers.map { pollfd(fd: $0.socket.rawValue, events: Int16(POLLIN), revents: 0) }
    func service(timeout: Double) {
        let ready = (try? Polling.poll(&descriptors, timeoutMilliseconds: Int32(max(0, timeout)))) ?? 0
        guard ready > 0 else { return }
        for index in descriptors.indices where descriptors[index].revents != 0 {
            readers[index].receive(timeout: 0)
            received[index] += readers[index].drain(quiet: 0)
        }
    }
    let start = monotonicMicroseconds()
    for frame in 0...frames {
        let due = start + UInt64(Double(frame) * interval * 1000)
        while true {
            let now = monotonicMicroseconds()
            if now >= due { break }
            service(timeout: Double(due - now) / 1000)
        }
        let spots = (0..<fingers).map { finger in
            let angle = (Double(frame) / 200 + Double(finger) / Double(fingers)) * 2 * Double.pi
            return (finger, Spot(0.5 + 0.2 * cos(angle), 0.5 + 0.2 * sin(angle)))
        }
        try panel.frame(Dictionary(uniqueKeysWithValues: spots))
    }
    try panel.lift()
    var quietSince = monotonicMicroseconds()
    while monotonicMicroseconds() - quietSince < 1_000_000 {
        let before = received.map(\.count).reduce(0, +)
        service(timeout: 100)
        if received.map(\.count).reduce(0, +) != before { quietSince = monotonicMicroseconds() }
    }
    return received
}

/// Kernel timestamp → receipt, for every event message that carries a `time`.
func latencies(_ messages: [Received]) -> [Int64] {
    messages.compactMap { message in
        guard let time = message.event?.time else { return nil }
        return Int64(message.receivedAt) - Int64(time.microseconds)
    }
}

/// Overflow messages among what a subscriber received, and the events they said were lost.
func overflows(_ messages: [Received]) -> (count: Int, dropped: UInt64) {
    var count = 0
    var dropped: UInt64 = 0
    for message in messages {
        if case .overflow(let lost)? = message.message {
            count += 1
            dropped += lost
        }
    }
    return (count, dropped)
}

/// The latency benchmark and the slow-subscriber case.
struct StreamingCases {
    let daemon: DaemonProcess
    let subscriber: Subscriber
    let panel: TouchPanel
    let frames: Int

    /// Streams with `clients` subscribers (touches and gestures) and prints the latency
    /// from each event's kernel timestamp to its receipt (not asserted). Returns the
    /// figures of the first client.
    @discardableResult
    func benchmark(_ harness: Harness, clients: Int, interval: Double, frames: Int? = nil) -> LatencyFigures? {
        let frames = frames ?? self.frames
        var figures: LatencyFigures?
        harness.run("benchmark: latency kernel → client, \(clients) client\(clients == 1 ? "" : "s"), a frame every \(interval) ms") {
            _ = subscriber.drain(quiet: 0.45)
            var readers: [Subscriber] = []
            for _ in 0..<clients {
                let reader = try Subscriber(socketPath: daemon.socketPath)
                try reader.subscribe(touches: true)
                readers.append(reader)
            }
            let got = Array(try streamCircle(on: panel, frames: frames, interval: interval, readers: [subscriber] + readers).dropFirst())
            let samples = got.flatMap(latencies)
            try expect(!samples.isEmpty, "no events received")
            let first = LatencyFigures(samples: latencies(got[0]))
            try expect(
                first.percentile(0.5) > -1_000_000 && first.percentile(0.5) < 60_000_000,
                "latency \(first.percentile(0.5)) µs: event times are not CLOCK_MONOTONIC")
            let lost = got.map(overflows)
            say(
                "BENCH latency kernel timestamp → receipt, \(clients) client\(clients == 1 ? "" : "s"), \(frames) frames every \(interval) ms: \(LatencyFigures(samples: samples))"
                    + "; \(lost.filter { $0.count > 0 }.count) clients told of \(lost.map(\.dropped).reduce(0, +)) dropped events")
            if clients > 1 { say("  (first client alone: \(first))") }
            figures = first
        }
        return figures
    }

    /// A stalled subscriber (small receive buffer, never reads) beside a reading one, in
    /// lockstep: each frame is written only once the reader has received the previous one,
    /// so no machine is too slow for it (the kernel's buffer cannot overflow) and a daemon
    /// that waited on the stalled client would stall the reader, which fails the case. The
    /// reader gets every frame's touch, in order, without a gap in `seq` or an overflow;
    /// the stalled one, read at last, is told it lost events. The latency beside the stalled
    /// client is printed as a figure (it depends on the machine), not judged.
    func slowSubscriber(_ harness: Harness) {
        harness.run("a subscriber that stops reading does not hold up another") {
            _ = subscriber.drain(quiet: 0.45)
            let stalled = try Subscriber(socketPath: daemon.socketPath, receiveBuffer: 4096)
            try stalled.subscribe(touches: true)
            let reader = try Subscriber(socketPath: daemon.socketPath)
            try reader.subscribe(touches: true)
            var got: [Received] = []
            var touches = 0
            for frame in 0...frames {
                let angle = Double(frame) / 200 * 2 * Double.pi
                try panel.frame([0: Spot(0.5 + 0.2 * cos(angle), 0.5 + 0.2 * sin(angle))])
                touches = try awaitTouches(frame + 1, reader: reader, into: &got, touches: touches, frame: frame)
            }
            try panel.lift()
            touches = try awaitTouches(frames + 2, reader: reader, into: &got, touches: touches, frame: frames + 1)
            _ = subscriber.drain(quiet: 0)
            got += reader.drain(quiet: 0.5)
            let seqs = got.compactMap { $0.event?.seq }
            let gaps = zip(seqs, seqs.dropFirst()).filter { $1 != $0 + 1 }.count
            try expect(gaps == 0, "the reading subscriber's seq has \(gaps) gaps")
            try expect(overflows(got).count == 0, "the reading subscriber got an overflow")
            try expect(
                got.contains { $0.gesture?.gesture == .drag && $0.gesture?.phase == .ended },
                "the reading subscriber never got the drag's end")
            say(
                "BENCH latency (lockstep) with 1 reading + 1 stalled subscriber, \(frames) frames: \(LatencyFigures(samples: latencies(got)))"
            )
            let late = stalled.drain(quiet: 0.5)
            let lost = overflows(late)
            say(
                "  (stalled subscriber, read afterwards: \(late.count) messages, \(lost.count) overflow messages, \(lost.dropped) events dropped)"
            )
            try expect(lost.count > 0, "the stalled subscriber was never told it lost events (slow-client = drop-oldest)")
        }
    }

    /// Reads `reader` until it has received `wanted` touch messages in all. The daemon has
    /// 30 s to deliver one frame: a liveness bound (a blocked daemon), not a speed verdict.
    private func awaitTouches(_ wanted: Int, reader: Subscriber, into got: inout [Received], touches: Int, frame: Int) throws(CaseFailure)
        -> Int
    {
        var touches = touches
        let deadline = monotonicMicroseconds() + 30_000_000
        while touches < wanted {
            let now = monotonicMicroseconds()
            guard now < deadline, !reader.closed else {
                throw CaseFailure(
                    "frame \(frame): the reading subscriber got \(touches) of \(wanted) touch events and nothing for 30 s\(reader.closed ? " (connection closed)" : "")"
                )
            }
            reader.receive(timeout: Double(deadline - now) / 1_000_000)
            let fresh = reader.drain(quiet: 0)
            touches += fresh.filter { if case .touch? = $0.message { true } else { false } }.count
            got += fresh
            // The long-lived subscriber reads everything too; it must not stall the daemon.
            _ = subscriber.drain(quiet: 0)
        }
        return touches
    }
}
