/// A FIFO ring buffer holding at most `capacity` elements. Its storage grows (doubling)
/// only as far as the queue actually fills, never beyond `capacity`, and is reused without
/// allocating; once emptied, storage beyond `retainedStorage` slots is given back: an idle
/// or quick client costs a few bytes, not a full queue (1024 events × 1000 clients would
/// be 24 MiB of resident memory). `DeliveryQueue`'s storage.
struct BoundedQueue<Element> {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0
    /// The most elements the queue holds.
    let capacity: Int
    /// The first allocation's size (for a queue that fills at all).
    static var initialStorage: Int { 16 }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    /// Appends; the caller checks `isFull` first.
    mutating func append(_ element: Element) {
        precondition(!isFull, "BoundedQueue overflow")
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    /// The oldest element, left in place.
    var first: Element? { count > 0 ? storage[head] : nil }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        if count == 0 && storage.count > Self.retainedStorage {
            // Emptied after a burst: give the storage back (a client that was behind once
            // must not pin its peak for the rest of its connection).
            storage = []
            head = 0
        }
        return element
    }

    /// The most slots an empty queue keeps allocated.
    static var retainedStorage: Int { 64 }

    /// Moves the elements, in order, into storage twice as large (capped at `capacity`).
    private mutating func grow() {
        let size = min(capacity, max(Self.initialStorage, storage.count * 2))
        var larger = [Element?](repeating: nil, count: size)
        for i in 0..<count {
            larger[i] = storage[(head + i) % storage.count]
        }
        storage = larger
        head = 0
    }
}
