import GestureCore
import GestureTestSupport
import Glibc
import SystemCalls

/// Delivery latencies in 1 µs buckets up to one second, with the rest counted above.
struct LatencyHistogram {
    static let range = 1_000_000
    private var buckets = [UInt64](repeating: 0, count: range)
    private(set) var count: UInt64 = 0
    private(set) var above: UInt64 = 0
    /// Receipts stamped before the event's own time (would mean the clocks disagree).
    private(set) var negative: UInt64 = 0
    private(set) var maximum: UInt64 = 0

    mutating func record(received: UInt64, eventTime: UInt64) {
        count += 1
        guard received >= eventTime else {
            negative += 1
            buckets[0] += 1
            return
        }
        let latency = received - eventTime
        maximum = max(maximum, latency)
        if latency < UInt64(Self.range) {
            buckets[Int(latency)] += 1
        } else {
            above += 1
        }
    }

    /// The smallest latency (µs) at or below which `fraction` of the samples lie.
    func percentile(_ fraction: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let target = UInt64((Double(count) * fraction).rounded(.up))
        var seen: UInt64 = 0
        for (latency, n) in buckets.enumerated() {
            seen += n
            if seen >= max(target, 1) { return UInt64(latency) }
        }
        return maximum
    }
}

/// Reads every client's socket on one thread with poll(2), stamps each
/// `recv` with CLOCK_MONOTONIC as soon as it returns, and records receipt − `time` for every
/// gesture line in it.
final class LatencyReader {
    private final class Connection {
        let fd: Int32
        var partial: [UInt8] = []
        var gestures: UInt64 = 0
        var dropped: UInt64 = 0
        var done = false
        init(fd: Int32) { self.fd = fd }
    }

    private var connections: [Connection] = []
    /// One entry per connection, same order; fd −1 once finished (poll skips it).
    private var pollSet: [pollfd] = []
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    private(set) var histogram = LatencyHistogram()
    private(set) var finished = 0
    private(set) var lines: UInt64 = 0
    private(set) var bytes: UInt64 = 0
    private(set) var firstGesture: UInt64 = 0
    private(set) var lastGesture: UInt64 = 0

    init() {}

    deinit {
        for connection in connections { close(connection.fd) }
    }

    var gestureCounts: [UInt64] { connections.map(\.gestures) }
    var droppedTotal: UInt64 { connections.reduce(0) { $0 + $1.dropped } }
    var count: Int { connections.count }

    /// Adds a connected socket (its `hello` already read).
    func add(_ fd: Int32) {
        setNonBlocking(fd)
        pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        connections.append(Connection(fd: fd))
    }

    /// Reads until every client saw the replay device removed (or its connection closed),
    /// or until `deadline` (monotonic µs). Returns whether all finished.
    func run(until deadline: UInt64) -> Bool {
        while finished < connections.count {
            let now = monotonicMicroseconds()
            if now >= deadline { return false }
            let ready = poll(&pollSet, nfds_t(pollSet.count), Int32(min(1000, (deadline - now) / 1000 + 1)))
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            var left = Int(ready)
            for i in pollSet.indices where left > 0 && pollSet[i].revents != 0 {
                left -= 1
                pollSet[i].revents = 0
                service(i)
            }
        }
        return true
    }

    private func service(_ index: Int) {
        let connection = connections[index]
        let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
        let received = monotonicMicroseconds()
        if count <= 0 {
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
            finish(index)
            return
        }
        bytes += UInt64(count)
        buffer.withUnsafeBufferPointer { chunk in
            var start = 0
            for i in 0..<count where chunk[i] == UInt8(ascii: "\n") {
                if connection.partial.isEmpty {
                    handleLine(UnsafeBufferPointer(rebasing: chunk[start..<i]), index, received)
                } else {
                    connection.partial.append(contentsOf: chunk[start..<i])
                    connection.partial.withUnsafeBufferPointer { handleLine($0, index, received) }
                    connection.partial.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            if start < count { connection.partial.append(contentsOf: chunk[start..<count]) }
        }
    }

    private func finish(_ index: Int) {
        let connection = connections[index]
        guard !connection.done else { return }
        connection.done = true
        finished += 1
        pollSet[index].fd = -1
    }

    private static let gesturePrefix = Array(#"{"type":"gesture""#.utf8)
    private static let removedPrefix = Array(#"{"type":"device","phase":"removed""#.utf8)
    private static let overflowPrefix = Array(#"{"type":"overflow","dropped":"#.utf8)
    private static let goodbyePrefix = Array(#"{"type":"goodbye""#.utf8)
    private static let timeKey = Array(#""time":"#.utf8)

    private func handleLine(_ line: UnsafeBufferPointer<UInt8>, _ index: Int, _ received: UInt64) {
        let connection = connections[index]
        lines += 1
        if line.starts(with: Self.gesturePrefix) {
            guard let time = WireScanner.unsigned(after: Self.timeKey, in: line) else { return }
            connection.gestures += 1
            histogram.record(received: received, eventTime: time)
            if firstGesture == 0 { firstGesture = received }
            lastGesture = received
        } else if line.starts(with: Self.overflowPrefix) {
            connection.dropped += WireScanner.unsigned(after: Self.overflowPrefix, in: line) ?? 0
        } else if line.starts(with: Self.removedPrefix) || line.starts(with: Self.goodbyePrefix) {
            finish(index)
        }
    }
}
