import Dispatch

/// The boxes of a burst's recent changes, kept by the state so that the modifying
/// thread, not a listener's, usually drops the last reference and frees them.
///
/// Each change's values live in one heap box (``StateChange``), allocated on the
/// modifying thread. When a listener's thread dropped the last reference, glibc
/// freed the box into the allocating thread's arena under that arena's lock, and the
/// modifying thread's next allocation waited for the same lock: at full replay
/// speed, about 9% of the process's samples were futex waits and wake-ups for it
/// (`perf`, Benchmarks `pipeline`). Kept here until ``capacity`` later changes have
/// been made, a box has normally been delivered to every listener by then, and the
/// state's thread frees it into its own thread cache.
///
/// Outside a burst (changes more than `Subscription.burstGapNanoseconds`, 1 ms,
/// apart, as from a 10 Hz receiver) it keeps only the newest box, so a daemon holds no more memory.
/// Which thread frees a box is all this changes: a listener that still holds one
/// simply frees it later, as before.
@usableFromInline
struct RetiredChanges<Value: Sendable>: Sendable {
    /// Changes kept in a burst: more than a listener's usual backlog of batches.
    @usableFromInline static var capacity: Int { 4096 }

    @usableFromInline var boxes: [StateChange<Value>.Values?] = []
    @usableFromInline var next = 0
    @usableFromInline var lastNanoseconds: UInt64 = 0

    @usableFromInline init() {}

    /// Keeps `change`'s box, dropping the one kept `capacity` changes ago, or all
    /// of them when the burst is over; `now` is `DispatchTime`'s uptime.
    @inlinable
    mutating func keep(_ change: StateChange<Value>, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        defer { lastNanoseconds = now }
        if now &- lastNanoseconds > Subscription<Value>.burstGapNanoseconds {
            if boxes.count == 1 {
                boxes[0] = change.values  // the steady case: no array freed and made again
            } else {
                boxes.removeAll()
                boxes.append(change.values)
            }
            next = 1
            return
        }
        if boxes.count < Self.capacity {
            boxes.append(change.values)
        } else {
            if next == Self.capacity { next = 0 }
            boxes[next] = change.values
        }
        next += 1
    }
}
