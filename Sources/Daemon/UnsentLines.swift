import GestureCore
import GestureProtocol
import SystemCalls

/// Where the event lines in a client's output buffer end and their input times, oldest
/// first: when `send` gets past a line's end, the line was written and its delivery latency
/// is known. Reuses its storage (no allocation per event once it has grown to a refill's
/// worth of lines).
struct UnsentLines {
    private var ends: [Int] = []
    private var times: [Timestamp] = []
    private var head = 0

    mutating func append(end: Int, inputTime: Timestamp) {
        ends.append(end)
        times.append(inputTime)
    }

    func hasLine(endingBy offset: Int) -> Bool {
        head < ends.count && ends[head] <= offset
    }

    /// The input time of the oldest line if it ends at or before `offset`, removing it.
    mutating func popLine(endingBy offset: Int) -> Timestamp? {
        guard hasLine(endingBy: offset) else { return nil }
        let time = times[head]
        head += 1
        if head == ends.count {
            ends.removeAll(keepingCapacity: true)
            times.removeAll(keepingCapacity: true)
            head = 0
        }
        return time
    }

    /// The output buffer lost its first `count` bytes (already sent).
    mutating func shift(by count: Int) {
        for index in head..<ends.count { ends[index] -= count }
    }
}
