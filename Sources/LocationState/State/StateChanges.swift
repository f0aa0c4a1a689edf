/// The changes of a ``MonitoredState`` as an `AsyncSequence`: `for await change in state.changes`.
///
/// The sequence is attached when it is created, not when iteration starts, so no
/// change made in between is missed. It delivers in order according to its
/// ``DeliveryPolicy`` on the executor of the task that iterates (an actor, for
/// instance). It ends when the iterating task is cancelled or the state is
/// released; it detaches from the state when the sequence and its iterator are
/// released.
///
/// - Important: iterate it from one task only; two iterators would share, not
///   duplicate, the changes.
public struct StateChanges<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = StateChange<Value>
    public typealias Failure = Never

    private let handle: Handle

    package init(_ subscription: Subscription<Value>) {
        handle = Handle(subscription)
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(handle: handle)
    }

    /// Takes changes in batches from the subscription and hands them out one by one.
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let handle: Handle
        private var batch: [StateChange<Value>] = []
        private var index = 0

        fileprivate init(handle: Handle) {
            self.handle = handle
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> StateChange<Value>? {
            if index == batch.count {
                batch = await handle.subscription.nextBatch(isolation: actor)
                index = 0
                if batch.isEmpty { return nil }
            }
            defer { index += 1 }
            return batch[index]
        }

        public mutating func next() async -> StateChange<Value>? {
            await next(isolation: nil)
        }
    }

    /// Detaches the subscription when the last sequence or iterator copy is released.
    fileprivate final class Handle: Sendable {
        let subscription: Subscription<Value>

        init(_ subscription: Subscription<Value>) {
            self.subscription = subscription
        }

        deinit {
            subscription.cancel()
        }
    }
}
