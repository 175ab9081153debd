import Glibc

/// A value shared between threads, reached only under a POSIX mutex.
///
/// Used instead of the standard library's `Synchronization.Mutex`: on Linux that lock takes
/// its contended path in an uninstrumented library (`FUTEX_LOCK_PI`), so ThreadSanitizer
/// sees no ordering between two threads that met at the lock and reports the guarded value
/// as raced. `pthread_mutex_lock` is intercepted by ThreadSanitizer, so the suite's TSan
/// tier judges the code that uses this type, not the lock.
public final class LockedValue<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held; returns what `body` returns.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
