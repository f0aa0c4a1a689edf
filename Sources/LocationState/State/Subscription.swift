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
/// at a time on the consumer's queue; that job delivers batches in order without
/// any lock held, taking the next batch while more changes keep arriving. So calls
/// for one subscription never overlap and keep their order, even on a concurrent
/// queue, and the modifying thread never waits for a consumer.
///
/// During a burst (``burstGapNanoseconds``) a drain job that delivered a small batch
/// sleeps for ``lingerNanoseconds`` and delivers what arrived meanwhile, because
/// waking a consumer costs more than most listeners' work; outside a burst it never sleeps.
///
/// The delivery path is `@inlinable` so that a client module specializes it for its
/// `Value`, rather than looking up generic metadata at every step.
@usableFromInline
package final class Subscription<Value: Sendable>: Sendable {
    @usableFromInline package typealias Waiter = CheckedContinuation<[StateChange<Value>], Never>

    /// How the buffered changes are consumed.
    @usableFromInline
    package enum Consumer: Sendable {
        /// Pushed by drain jobs on the queue. Each batch asks `receiver` once for
        /// the function that takes its changes; `nil` means the receiver is gone
        /// (a released weak listener), which cancels.
        case queue(DispatchQueue, receiver: @Sendable () -> ((StateChange<Value>) -> Void)?)
        /// Pulled in batches by ``nextBatch(isolation:)``.
        case stream
    }

    @usableFromInline
    package struct Buffer: Sendable {
        @usableFromInline var pending: [StateChange<Value>] = []
        /// An empty array with capacity, swapped with `pending` by the drain job
        /// so that steady traffic reuses two allocations.
        @usableFromInline var spare: [StateChange<Value>] = []
        @usableFromInline var drainScheduled = false
        @usableFromInline var waiter: Waiter?
        /// No change will be enqueued any more (cancelled, or the state is gone).
        @usableFromInline var finished = false
        /// When the last drain job ended (`DispatchTime` uptime nanoseconds), to
        /// tell a burst from changes that come one at a time.
        @usableFromInline var idleSinceNanoseconds: UInt64 = 0

        @usableFromInline init() {}

        /// Appends `change`; with ``DeliveryPolicy/latest`` keeps only the first
        /// pending change and the newest, which `coalesce(_:)` merges
        /// outside the lock.
        @inlinable
        mutating func append(_ change: StateChange<Value>, policy: DeliveryPolicy) {
            if policy == .latest, pending.count == 2 {
                pending[1] = change
            } else {
                pending.append(change)
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

        /// Swaps the pending changes into `batch`, an emptied batch whose storage
        /// becomes `pending`; returns false, changing nothing, if none are pending.
        @inlinable
        mutating func takePending(into batch: inout [StateChange<Value>]) -> Bool {
            guard !pending.isEmpty else { return false }
            swap(&batch, &pending)
            return true
        }
    }

    /// Changes that reach an idle subscription within this time of its last drain
    /// job ending count as a burst: at 1 ms, a 10 Hz receiver never makes one, a
    /// replay at full speed always does.
    @usableFromInline package static var burstGapNanoseconds: UInt64 { 1_000_000 }

    /// How long a drain job in a burst sleeps after delivering a small batch (see
    /// ``lingerBelowBatchCount``): the most a change waits in a burst.
    @usableFromInline package static var lingerNanoseconds: Int { 50_000 }

    /// A batch smaller than this, in a burst, means the listener keeps up with the
    /// changes: taking them as they come would contend with `modify` for the
    /// buffer's lock on every change, so the job sleeps first and takes more at once.
    @usableFromInline package static var lingerBelowBatchCount: Int { 64 }

    /// How many batches a drain job delivers before it schedules its successor,
    /// so that other work on a shared queue gets its turn during a long burst.
    @usableFromInline package static var batchesPerJob: Int { 64 }

    @usableFromInline package let policy: DeliveryPolicy
    /// The listener object this subscription delivers to, for `removeListener`.
    @usableFromInline package let listenerID: ObjectIdentifier?
    @usableFromInline package let consumer: Consumer
    /// The queue of a `.queue` consumer, kept apart so that `enqueue` need not copy
    /// the enum, nor retain the queue unless it schedules a drain job.
    @usableFromInline package let queue: DispatchQueue?
    /// Which changes `modify` hands over (`nil`: all); see ``MonitoredState/observe(on:policy:sendingCurrentValue:filter:_:)``.
    @usableFromInline package let filter: (@Sendable (StateChange<Value>) -> Bool)?
    @usableFromInline package let buffer = Locked(Buffer())
    @usableFromInline package let cancelled = Atomic<Bool>(false)
    private weak let owner: MonitoredState<Value>?

    @usableFromInline
    package init(
        owner: MonitoredState<Value>, policy: DeliveryPolicy, consumer: Consumer,
        listenerID: ObjectIdentifier? = nil, filter: (@Sendable (StateChange<Value>) -> Bool)? = nil
    ) {
        self.owner = owner
        self.filter = filter
        self.policy = policy
        self.consumer = consumer
        self.listenerID = listenerID
        if case .queue(let queue, _) = consumer {
            self.queue = queue
        } else {
            queue = nil
        }
    }

    /// `batch` as the listener receives it: with ``DeliveryPolicy/latest``, the
    /// first pending change and the newest (see `Buffer.append`) merged into one.
    @inlinable
    package func coalesce(_ batch: inout [StateChange<Value>]) {
        guard policy == .latest, batch.count == 2 else { return }
        let merged = StateChange(old: batch[0].old, new: batch[1].new)
        batch.removeLast()
        batch[0] = merged
    }

    /// `batch` coalesced, for a stream.
    @usableFromInline
    package func coalesced(_ batch: [StateChange<Value>]) -> [StateChange<Value>] {
        var batch = batch
        coalesce(&batch)
        return batch
    }

    /// Buffers `change` according to the policy and wakes the consumer; never blocks
    /// on the consumer.
    @inlinable
    package func enqueue(_ change: StateChange<Value>) {
        guard queue != nil else { return enqueueForStream(change) }
        let schedule = buffer.withLock { buffer -> Bool in
            guard !buffer.finished else { return false }
            buffer.append(change, policy: policy)
            guard !buffer.drainScheduled else { return false }
            buffer.drainScheduled = true
            return true
        }
        if schedule, let queue {
            queue.async { self.drain(continuingBurst: false) }
        }
    }

    /// `enqueue` for a stream: hands the buffer to a waiting iterator, if any.
    @usableFromInline
    package func enqueueForStream(_ change: StateChange<Value>) {
        let wake = buffer.withLock { buffer -> (Waiter, [StateChange<Value>])? in
            guard !buffer.finished else { return nil }
            buffer.append(change, policy: policy)
            guard let waiter = buffer.waiter else { return nil }
            buffer.waiter = nil
            return (waiter, buffer.takePending())
        }
        if let (waiter, batch) = wake {
            waiter.resume(returning: coalesced(batch))
        }
    }

    /// Delivers batches on the consumer's queue while changes keep arriving.
    ///
    /// - Parameter continuingBurst: the job that scheduled this one was in a burst.
    @inlinable
    package func drain(continuingBurst: Bool) {
        guard case .queue(let queue, let receiver) = consumer else { return }
        var idleSince: UInt64 = 0
        var batch = buffer.withLock { buffer in
            idleSince = buffer.idleSinceNanoseconds
            return buffer.takePending()
        }
        let inBurst = continuingBurst || DispatchTime.now().uptimeNanoseconds &- idleSince < Self.burstGapNanoseconds
        for round in 1...Self.batchesPerJob {
            guard let deliver = receiver() else {
                cancel()
                return
            }
            coalesce(&batch)
            for change in batch {
                if cancelled.load(ordering: .acquiring) { return }
                deliver(change)
            }
            let delivered = batch.count
            batch.removeAll(keepingCapacity: true)
            if round == Self.batchesPerJob { break }
            let lingering = inBurst && delivered < Self.lingerBelowBatchCount
            guard takeNextBatch(into: &batch, lingering: lingering) else { return }
        }
        buffer.withLock { swap(&$0.spare, &batch) }
        queue.async { self.drain(continuingBurst: inBurst) }
    }

    /// Fills the emptied `batch` with the changes that arrived, after sleeping for
    /// ``lingerNanoseconds`` if `lingering`; returns false, having ended the job
    /// (`drainScheduled` cleared), if there are none.
    @inlinable
    package func takeNextBatch(into batch: inout [StateChange<Value>], lingering: Bool) -> Bool {
        if lingering {
            sleep(nanoseconds: Self.lingerNanoseconds)
        }
        let now = DispatchTime.now().uptimeNanoseconds
        return buffer.withLock { buffer in
            if buffer.takePending(into: &batch) { return true }
            buffer.drainScheduled = false
            buffer.idleSinceNanoseconds = now
            swap(&buffer.spare, &batch)
            return false
        }
    }

    /// The changes buffered so far, waiting for at least one; empty once the
    /// subscription is finished and drained, or when the calling task is cancelled.
    package func nextBatch(isolation: isolated (any Actor)? = #isolation) async -> [StateChange<Value>] {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { continuation in
                let ready = buffer.withLock { buffer -> [StateChange<Value>]? in
                    if !buffer.pending.isEmpty { return buffer.takePending() }
                    if buffer.finished { return [] }
                    buffer.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: self.coalesced(ready))
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops all delivery: drops what is buffered, ends the stream, and detaches
    /// from the state. Idempotent; safe from any thread, including from a delivery.
    @usableFromInline
    package func cancel() {
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
    package func finish() {
        let wake = buffer.withLock { buffer -> (Waiter, [StateChange<Value>])? in
            buffer.finished = true
            guard let waiter = buffer.waiter else { return nil }
            buffer.waiter = nil
            return (waiter, buffer.takePending())
        }
        if let (waiter, batch) = wake {
            waiter.resume(returning: coalesced(batch))
        }
    }
}

/// Blocks the calling thread for about `nanoseconds` (less than a second).
@usableFromInline
package func sleep(nanoseconds: Int) {
    var interval = timespec(tv_sec: 0, tv_nsec: nanoseconds)
    nanosleep(&interval, nil)
}
