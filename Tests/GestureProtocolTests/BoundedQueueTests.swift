import Testing

@testable import GestureProtocol

@Suite struct BoundedQueueTests {
    /// Against an array model: FIFO order and the capacity limit hold through growth and
    /// wrap-around, for capacities below, at and above the first allocation.
    @Test(arguments: [1, 3, 16, 17, 100])
    func behavesAsAFIFOOfLimitedLength(capacity: Int) {
        var queue = BoundedQueue<Int>(capacity: capacity)
        var model: [Int] = []
        var next = 0
        // A fixed pattern of pushes and pops that fills, drains and wraps repeatedly.
        for step in 0..<2_000 {
            let push = (step / 37) % 3 != 2
            if push {
                #expect(queue.isFull == (model.count == capacity))
                if !queue.isFull {
                    queue.append(next)
                    model.append(next)
                    next += 1
                }
            } else {
                #expect(queue.popFirst() == model.first)
                if !model.isEmpty { model.removeFirst() }
            }
            #expect(queue.count == model.count)
            #expect(queue.isEmpty == model.isEmpty)
        }
        while let element = queue.popFirst() {
            #expect(element == model.removeFirst())
        }
        #expect(model.isEmpty)
    }
}
