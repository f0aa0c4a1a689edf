#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that is only ever read or written while holding its own pthread mutex.
///
/// A plain `pthread_mutex_t` rather than `Synchronization.Mutex`: ThreadSanitizer
/// on Linux intercepts pthread mutexes and understands the happens-before they
/// create, whereas it may report false races inside `Mutex`. The mutex is not
/// recursive: calling `withLock` again from inside `body` deadlocks.
final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// Safe to share: `value` is private and only touched inside `withLock`, which
// holds `mutex` for the whole access; `mutex` itself is allocated once, never
// reassigned, and freed only in `deinit`, when no other reference exists. Values
// cross threads only through `withLock`, hence the `Value: Sendable` condition.
extension Locked: @unchecked Sendable where Value: Sendable {}
