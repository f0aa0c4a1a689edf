import Dispatch
import Synchronization

/// Counts the changes in flight between one sender and one listener, and parks the
/// sender while there are too many.
///
/// The sender parks when a change would exceed ``limit`` and is woken once, when the
/// listener is down to half of it: a listener that keeps up costs no wake-up at all,
/// one that does not costs one per `limit / 2` changes rather than one per change.
///
/// Counting is one atomic addition on each side, without a lock: the sender announces
/// that it parks by setting `resumeAt`, then looks at the count again; the listener
/// counts down, then looks at `resumeAt`. Both are sequentially consistent, so at
/// least one of them sees the other's write, and whichever clears `resumeAt` first
/// owns the wake-up: the listener signals, or the sender does not wait.
public final class ReplayFlowControl: Sendable {
    /// The most changes in flight.
    public let limit: Int
    /// Changes counted and not yet delivered, including the one the sender waits to send.
    private let inFlight = Atomic<Int>(0)
    /// The count at which the parked sender is to be woken; -1 while none is parked.
    private let resumeAt = Atomic<Int>(-1)
    private let wakeUp = DispatchSemaphore(value: 0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more change in flight, first waiting for room when there are ``limit``.
    ///
    /// - Important: one sender at a time.
    public func acquire() {
        let count = inFlight.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        guard count > limit else { return }
        // Counted already: the change waiting to be sent, on top of the half.
        park(until: limit / 2 + 1)
    }

    /// Counts `delivered` changes delivered; wakes the sender when it waits and there is room again.
    public func release(_ delivered: Int = 1) {
        let count = inFlight.wrappingSubtract(delivered, ordering: .sequentiallyConsistent).newValue
        let threshold = resumeAt.load(ordering: .sequentiallyConsistent)
        guard threshold >= 0, count <= threshold else { return }
        if resumeAt.compareExchange(expected: threshold, desired: -1, ordering: .sequentiallyConsistent).exchanged {
            wakeUp.signal()
        }
    }

    /// Waits until every change counted has been delivered.
    ///
    /// - Important: from the sender's thread, after its last ``acquire()``.
    public func waitUntilIdle() {
        park(until: 0)
    }

    /// Waits until the count is down to `threshold`, unless it already is.
    ///
    /// Only the sender counts up, so the count cannot rise again while it waits. The
    /// loop covers a late wake-up: a release that read `resumeAt` of an earlier wait,
    /// which the sender ended itself, and clears it for this one.
    private func park(until threshold: Int) {
        while inFlight.load(ordering: .sequentiallyConsistent) > threshold {
            resumeAt.store(threshold, ordering: .sequentiallyConsistent)
            if inFlight.load(ordering: .sequentiallyConsistent) <= threshold,
                resumeAt.compareExchange(expected: threshold, desired: -1, ordering: .sequentiallyConsistent)
                    .exchanged
            {
                return
            }
            wakeUp.wait()
        }
    }
}
