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
/// create, whereas it may report false races inside `Mutex`. The value lives in
/// memory allocated once, so that access needs no dynamic exclusivity check. The
/// mutex is not recursive: calling `withLock` again from inside `body` deadlocks.
@usableFromInline
final class Locked<Value> {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    @usableFromInline
    init(_ initialValue: Value) {
        value = UnsafeMutablePointer.allocate(capacity: 1)
        value.initialize(to: initialValue)
        mutex = UnsafeMutablePointer.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

// Safe to share: the value is only touched inside `withLock`, which holds `mutex`
// for the whole access; both pointers are allocated once in `init`, never
// reassigned, and freed only in `deinit`, when no other reference exists. Values
// cross threads only through `withLock`, hence the `Value: Sendable` condition.
extension Locked: @unchecked Sendable where Value: Sendable {}
