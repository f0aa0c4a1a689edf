import Dispatch
import Synchronization

/// One attachment to a ``MonitoredState``: its buffer of undelivered changes and
/// the consumer that takes them, a drain job on a queue or an async iterator.
///
/// `enqueue` appends under the buffer's lock and schedules at most one drain job
/// at a time on the consumer's queue; that job delivers a batch in order without
/// any lock held, then schedules itself again if more changes arrived. So calls
/// for one subscription never overlap and keep their order, even on a concurrent
/// queue, and the modifying thread never waits for a consumer.
final class Subscription<Value: Sendable>: Sendable {
    /// How the buffered changes are consumed.
    enum Consumer: Sendable {
        /// Pushed by drain jobs on the queue; `deliver` returns `false` once its
        /// receiver is gone (a released weak listener), which cancels.
        case queue(DispatchQueue, deliver: @Sendable (StateChange<Value>) -> Bool)
        /// Pulled in batches by ``nextBatch(isolation:)``.
        case stream
    }

    private typealias Waiter = CheckedContinuation<[StateChange<Value>], Never>

    private struct Buffer {
        var pending: [StateChange<Value>] = []
        /// An empty array with capacity, swapped with `pending` by the drain job
        /// so that steady traffic reuses two allocations.
        var spare: [StateChange<Value>] = []
        var drainScheduled = false
        var waiter: Waiter?
        /// No change will be enqueued any more (cancelled, or the state is gone).
        var finished = false
    }

    private enum Action {
        case none
        case scheduleDrain(DispatchQueue)
        case resume(Waiter, [StateChange<Value>])
    }

    let policy: DeliveryPolicy
    /// The listener object this subscription delivers to, for `removeListener`.
    let listenerID: ObjectIdentifier?
    private let consumer: Consumer
    private let buffer = Locked(Buffer())
    private let cancelled = Atomic<Bool>(false)
    private weak let owner: MonitoredState<Value>?

    init(
        owner: MonitoredState<Value>, policy: DeliveryPolicy, consumer: Consumer,
        listenerID: ObjectIdentifier? = nil
    ) {
        self.owner = owner
        self.policy = policy
        self.consumer = consumer
        self.listenerID = listenerID
    }

    /// Buffers `change` according to the policy and wakes the consumer; never blocks
    /// on the consumer.
    func enqueue(_ change: StateChange<Value>) {
        let action = buffer.withLock { buffer -> Action in
            guard !buffer.finished else { return .none }
            switch policy {
            case .all:
                buffer.pending.append(change)
            case .latest:
                if let first = buffer.pending.first {
                    buffer.pending[0] = StateChange(old: first.old, new: change.new)
                } else {
                    buffer.pending.append(change)
                }
            }
            if let waiter = buffer.waiter {
                buffer.waiter = nil
                defer { buffer.pending = [] }
                return .resume(waiter, buffer.pending)
            }
            if case .queue(let queue, _) = consumer, !buffer.drainScheduled {
                buffer.drainScheduled = true
                return .scheduleDrain(queue)
            }
            return .none
        }
        switch action {
        case .none:
            break
        case .scheduleDrain(let queue):
            queue.async { self.drain() }
        case .resume(let waiter, let batch):
            waiter.resume(returning: batch)
        }
    }

    /// Delivers one batch on the consumer's queue, then schedules the next if any.
    private func drain() {
        guard case .queue(let queue, let deliver) = consumer else { return }
        var batch = buffer.withLock { buffer in
            var taken: [StateChange<Value>] = []
            swap(&taken, &buffer.spare)
            swap(&taken, &buffer.pending)
            return taken
        }
        for change in batch {
            if cancelled.load(ordering: .acquiring) { return }
            if !deliver(change) {
                cancel()
                return
            }
        }
        batch.removeAll(keepingCapacity: true)
        let more = buffer.withLock { buffer in
            buffer.spare = batch
            if buffer.pending.isEmpty {
                buffer.drainScheduled = false
                return false
            }
            return true
        }
        if more {
            queue.async { self.drain() }
        }
    }

    /// The changes buffered so far, waiting for at least one; empty once the
    /// subscription is finished and drained, or when the calling task is cancelled.
    func nextBatch(isolation: isolated (any Actor)? = #isolation) async -> [StateChange<Value>] {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { continuation in
                let ready = buffer.withLock { buffer -> [StateChange<Value>]? in
                    if !buffer.pending.isEmpty {
                        defer { buffer.pending = [] }
                        return buffer.pending
                    }
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
            defer { buffer.pending = [] }
            return (waiter, buffer.pending)
        }
        if let (waiter, batch) = wake {
            waiter.resume(returning: batch)
        }
    }
}
