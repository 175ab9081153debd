/// A FIFO ring buffer holding at most `capacity` elements. Its storage grows (doubling)
/// only as far as the queue actually fills, never beyond `capacity`, and is reused without
/// allocating; once emptied, storage beyond `retainedStorage` slots is given back: an idle
/// or quick client costs a few bytes, not a full queue (1024 events × 1000 clients would
/// be 24 MiB of resident memory). `DeliveryQueue`'s storage, inlinable as it is.
@usableFromInline
struct BoundedQueue<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0
    @usableFromInline var count = 0
    /// The most elements the queue holds.
    @usableFromInline let capacity: Int
    /// The first allocation's size (for a queue that fills at all).
    @inlinable static var initialStorage: Int { 16 }

    @inlinable
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    @inlinable var isEmpty: Bool { count == 0 }
    @inlinable var isFull: Bool { count == capacity }

    /// Appends; the caller checks `isFull` first.
    @inlinable
    mutating func append(_ element: Element) {
        precondition(!isFull, "BoundedQueue overflow")
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    /// The oldest element, left in place.
    @inlinable var first: Element? { count > 0 ? storage[head] : nil }

    @inlinable
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
    @inlinable static var retainedStorage: Int { 64 }

    /// Moves the elements, in order, into storage twice as large (capped at `capacity`).
    @inlinable
    mutating func grow() {
        let size = min(capacity, max(Self.initialStorage, storage.count * 2))
        var larger = [Element?](repeating: nil, count: size)
        for i in 0..<count {
            larger[i] = storage[(head + i) % storage.count]
        }
        storage = larger
        head = 0
    }
}
