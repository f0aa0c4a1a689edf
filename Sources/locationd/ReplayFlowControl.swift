import Dispatch
import Synchronization

/// Counts the changes in flight between one sender and one listener, and parks the
/// sender while there are too many.
///
/// The sender parks when a change would exceed ``limit`` and is woken once, when the
/// listener is down to half of it: a listener that keeps up costs no wake-up at all,
/// one that does not costs one per `limit / 2` changes rather than one per change.
final class ReplayFlowControl: Sendable {
    private struct Count {
        var inFlight = 0
        /// The count at which the parked sender is woken; nil while none is parked.
        var resumeAt: Int?
    }

    /// The most changes in flight.
    let limit: Int
    private let count = Mutex(Count())
    private let wakeUp = DispatchSemaphore(value: 0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more change in flight, first waiting for room when there are ``limit``.
    ///
    /// - Important: one sender at a time.
    func acquire() {
        let limit = self.limit
        let park = count.withLock { count -> Bool in
            guard count.inFlight >= limit else {
                count.inFlight += 1
                return false
            }
            count.resumeAt = limit / 2
            return true
        }
        if park {
            wakeUp.wait()
            count.withLock { $0.inFlight += 1 }
        }
    }

    /// Counts one change delivered; wakes the sender when it waits and there is room again.
    func release() {
        let wake = count.withLock { count -> Bool in
            count.inFlight -= 1
            guard let resumeAt = count.resumeAt, count.inFlight <= resumeAt else { return false }
            count.resumeAt = nil
            return true
        }
        if wake { wakeUp.signal() }
    }

    /// Waits until every change counted has been delivered.
    ///
    /// - Important: from the sender's thread, after its last ``acquire()``.
    func waitUntilIdle() {
        let park = count.withLock { count -> Bool in
            guard count.inFlight > 0 else { return false }
            count.resumeAt = 0
            return true
        }
        if park { wakeUp.wait() }
    }
}
