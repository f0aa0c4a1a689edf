#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that is only ever read or written while holding its own pthread mutex:
/// the one lock of locationd, its tests and its benchmarks.
///
/// A plain `pthread_mutex_t` rather than `Synchronization.Mutex`, `NSLock` or
/// `os_unfair_lock`: ThreadSanitizer on Linux intercepts pthread mutexes and
/// understands the happens-before they create, whereas it may report false races
/// inside `Mutex`. The value lives in memory allocated once, so that access needs no
/// dynamic exclusivity check. The mutex is not recursive: calling `withLock` again
/// from inside `body` deadlocks.
///
/// As with `Mutex`, the value may be of a non-`Sendable` type: it enters with
/// `sending`, and leaves only as a `sending` result of `withLock`.
public final class Locked<Value> {
    @usableFromInline package let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline package let value: UnsafeMutablePointer<Value>

    public init(_ initialValue: sending Value) {
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
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

// Safe to share: the value is only touched inside `withLock`, which holds `mutex`
// for the whole access; both pointers are allocated once in `init`, never
// reassigned, and freed only in `deinit`, when no other reference exists. A value
// crosses threads only as `sending` (into `init`, out of `withLock`'s body and
// result), which the compiler checks, as it does for `Synchronization.Mutex`.
extension Locked: @unchecked Sendable {}
