import Dispatch

/// The boxes of a burst's recent changes, kept by the state so that the modifying
/// thread, not a listener's, usually drops the last reference and frees them: a box
/// freed on another thread contends for the allocating thread's arena lock.
///
/// Outside a burst (changes more than `Subscription.burstGapNanoseconds` apart) it
/// keeps only the newest box. A listener that still holds a box simply frees it later.
@usableFromInline
package struct RetiredChanges<Value: Sendable>: Sendable {
    /// Changes kept in a burst: more than a listener's usual backlog of batches.
    @usableFromInline package static var capacity: Int { 4096 }

    @usableFromInline package var boxes: [StateChange<Value>.Values?] = []
    @usableFromInline package var next = 0
    @usableFromInline package var lastNanoseconds: UInt64 = 0

    @usableFromInline package init() {}

    /// Keeps `change`'s box, dropping the one kept `capacity` changes ago, or all
    /// of them when the burst is over; `now` is `DispatchTime`'s uptime.
    @inlinable
    package mutating func keep(_ change: StateChange<Value>, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
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
