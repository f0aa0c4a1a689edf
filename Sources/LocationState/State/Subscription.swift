import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One attachment to a ``MonitoredState``: its buffer of undelivered changes and
/// the consumer that takes them, a drain job on a queue or an async iterator.
///
/// `enqueue` appends under the buffer's lock and schedules at most one drain job
/// at a time on the consumer's queue; that job delivers a batch in order without
/// any lock held, then schedules itself again if more changes arrived. So calls
/// for one subscription never overlap and keep their order, even on a concurrent
/// queue, and the modifying thread never waits for a consumer.
///
/// The delivery path is `@inlinable` so that a client module specializes it for
/// its `Value`: unspecialized, every step looks up generic type metadata at run
/// time, which made fan-out about ten times slower (Benchmarks, `fanout`).
@usableFromInline
final class Subscription<Value: Sendable>: Sendable {
    @usableFromInline typealias Waiter = CheckedContinuation<[StateChange<Value>], Never>

    /// How the buffered changes are consumed.
    @usableFromInline
    enum Consumer: Sendable {
        /// Pushed by drain jobs on the queue. Each batch asks `receiver` once for
        /// the function that takes its changes; `nil` means the receiver is gone
        /// (a released weak listener), which cancels.
        case queue(DispatchQueue, receiver: @Sendable () -> ((StateChange<Value>) -> Void)?)
        /// Pulled in batches by ``nextBatch(isolation:)``.
        case stream
    }

    @usableFromInline
    struct Buffer: Sendable {
        @usableFromInline var pending: [StateChange<Value>] = []
        /// An empty array with capacity, swapped with `pending` by the drain job
        /// so that steady traffic reuses two allocations.
        @usableFromInline var spare: [StateChange<Value>] = []
        @usableFromInline var drainScheduled = false
        @usableFromInline var waiter: Waiter?
        /// No change will be enqueued any more (cancelled, or the state is gone).
        @usableFromInline var finished = false

        @usableFromInline init() {}

        @inlinable
        mutating func append(_ change: StateChange<Value>, policy: DeliveryPolicy) {
            switch policy {
            case .all:
                pending.append(change)
            case .latest:
                if let first = pending.first {
                    pending[0] = StateChange(old: first.old, new: change.new)
                } else {
                    pending.append(change)
                }
            }
        }

        /// Hands out the pending changes and leaves `pending` empty.
        @inlinable
        mutating func takePending() -> [StateChange<Value>] {
            var taken = spare
            spare = []
            swap(&taken, &pending)
            return taken
        }
    }

    /// How many times a drain job that found nothing more yields the processor and
    /// looks again before it ends, during a burst. Under a burst of modifications
    /// this keeps the job running and saves the thread wake-up that otherwise
    /// dominates the cost of a change. A job lingers only when it met a backlog
    /// (more than one change in its batch, or a predecessor that found more after
    /// delivering): when changes are rare, as for a 10 Hz receiver, lingering
    /// never finds work and would be pure cost.
    @usableFromInline static var lingerRounds: Int { 2 }

    @usableFromInline let policy: DeliveryPolicy
    /// The listener object this subscription delivers to, for `removeListener`.
    @usableFromInline let listenerID: ObjectIdentifier?
    @usableFromInline let consumer: Consumer
    /// The queue of a `.queue` consumer, kept apart so that `enqueue` need not copy
    /// the enum, nor retain the queue unless it schedules a drain job.
    @usableFromInline let queue: DispatchQueue?
    @usableFromInline let buffer = Locked(Buffer())
    @usableFromInline let cancelled = Atomic<Bool>(false)
    private weak let owner: MonitoredState<Value>?

    @usableFromInline
    init(
        owner: MonitoredState<Value>, policy: DeliveryPolicy, consumer: Consumer,
        listenerID: ObjectIdentifier? = nil
    ) {
        self.owner = owner
        self.policy = policy
        self.consumer = consumer
        self.listenerID = listenerID
        if case .queue(let queue, _) = consumer {
            self.queue = queue
        } else {
            queue = nil
        }
    }

    /// Buffers `change` according to the policy and wakes the consumer; never blocks
    /// on the consumer.
    @inlinable
    func enqueue(_ change: StateChange<Value>) {
        guard queue != nil else { return enqueueForStream(change) }
        let schedule = buffer.withLock { buffer -> Bool in
            guard !buffer.finished else { return false }
            buffer.append(change, policy: policy)
            guard !buffer.drainScheduled else { return false }
            buffer.drainScheduled = true
            return true
        }
        if schedule, let queue {
            queue.async { self.drain(afterBacklog: false) }
        }
    }

    /// `enqueue` for a stream: hands the buffer to a waiting iterator, if any.
    @usableFromInline
    func enqueueForStream(_ change: StateChange<Value>) {
        let wake = buffer.withLock { buffer -> (Waiter, [StateChange<Value>])? in
            guard !buffer.finished else { return nil }
            buffer.append(change, policy: policy)
            guard let waiter = buffer.waiter else { return nil }
            buffer.waiter = nil
            return (waiter, buffer.takePending())
        }
        if let (waiter, batch) = wake {
            waiter.resume(returning: batch)
        }
    }

    /// Delivers one batch on the consumer's queue, then schedules the next if any.
    ///
    /// - Parameter afterBacklog: the previous job found more changes after delivering.
    @inlinable
    func drain(afterBacklog: Bool) {
        guard case .queue(let queue, let receiver) = consumer else { return }
        var batch = buffer.withLock { $0.takePending() }
        guard let deliver = receiver() else {
            cancel()
            return
        }
        for change in batch {
            if cancelled.load(ordering: .acquiring) { return }
            deliver(change)
        }
        let lingerRounds = afterBacklog || batch.count > 1 ? Self.lingerRounds : 0
        batch.removeAll(keepingCapacity: true)
        buffer.withLock { $0.spare = batch }
        for round in 0...lingerRounds {
            let more = buffer.withLock { buffer -> Bool in
                if buffer.pending.isEmpty, round == lingerRounds {
                    buffer.drainScheduled = false
                }
                return !buffer.pending.isEmpty
            }
            if more {
                queue.async { self.drain(afterBacklog: true) }
                return
            }
            if round < lingerRounds {
                sched_yield()
            }
        }
    }

    /// The changes buffered so far, waiting for at least one; empty once the
    /// subscription is finished and drained, or when the calling task is cancelled.
    func nextBatch(isolation: isolated (any Actor)? = #isolation) async -> [StateChange<Value>] {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { continuation in
                let ready = buffer.withLock { buffer -> [StateChange<Value>]? in
                    if !buffer.pending.isEmpty { return buffer.takePending() }
                    if buffer.finished { return [] }
                    buffer.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops all delivery: drops what is buffered, ends the stream, and detaches
    /// from the state. Idempotent; safe from any thread, including from a delivery.
    @usableFromInline
    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let waiter = buffer.withLock { buffer in
            buffer.finished = true
            buffer.pending = []
            defer { buffer.waiter = nil }
            return buffer.waiter
        }
        waiter?.resume(returning: [])
        owner?.remove(self)
    }

    /// Marks the end of changes because the state is gone: what is buffered is
    /// still delivered, then a stream ends.
    func finish() {
        let wake = buffer.withLock { buffer -> (Waiter, [StateChange<Value>])? in
            buffer.finished = true
            guard let waiter = buffer.waiter else { return nil }
            buffer.waiter = nil
            return (waiter, buffer.takePending())
        }
        if let (waiter, batch) = wake {
            waiter.resume(returning: batch)
        }
    }
}
