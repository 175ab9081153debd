import Dispatch
import SystemCalls
import Testing

/// `LockedValue` under contention: eight threads adding at once lose no update. Run by the
/// ThreadSanitizer tier too, where a lock TSan cannot see would be reported as a race.
@Suite struct LockedValueTests {
    @Test func contendedUpdatesAreNeitherLostNorRaced() {
        let counter = LockedValue<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for step in 0..<2_000 { counter.withLock { $0.append(thread * 10_000 + step) } }
        }
        let values = counter.withLock { $0 }
        #expect(values.count == 16_000)
        #expect(Set(values).count == 16_000)
    }

    @Test func withLockReturnsWhatTheBodyReturns() {
        let box = LockedValue(41)
        let seen = box.withLock { value -> Int in
            value += 1
            return value
        }
        #expect(seen == 42)
        #expect(box.withLock { $0 } == 42)
    }
}
