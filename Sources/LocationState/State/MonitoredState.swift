import Dispatch

/// A ``State`` that tells listeners about every change, each on the executor it chooses.
///
/// Three ways to listen, all with the same guarantees (see ``StateListener``):
/// a weakly held ``StateListener`` object, a closure kept alive by the returned
/// ``StateObservation``, or the ``changes`` async sequence. Each listener gets
/// `(old, new)` for every change in the order changes were made (or the newest,
/// with ``DeliveryPolicy/latest``), optionally the current value first, and
/// never delays `modify` or the other listeners.
///
/// ```swift
/// let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
/// deviceLocation.addListener(tileLogger, on: tileQueue, sendingCurrentValue: true)
/// let token = deviceLocation.observe(policy: .latest) { change in print(change.new as Any) }
/// for await change in deviceLocation.changes { ... }
/// ```
///
/// No delivery depends on the main queue. Calls for one listener never overlap;
/// different listeners run concurrently.
public final class MonitoredState<Value: Sendable>: State<Value>, @unchecked Sendable {
    // `@unchecked` only because the superclass is not final; the stored properties
    // added here are `let`s of `Sendable` types (see `State`).
    @usableFromInline package let subscriptions = Locked<[Subscription<Value>]>([])
    /// Boxes of recent changes, dropped on the modifying thread (see `RetiredChanges`).
    @usableFromInline package let retired = Locked(RetiredChanges<Value>())

    deinit {
        for subscription in subscriptions.withLock({ $0 }) {
            subscription.finish()
        }
    }

    /// Attaches `listener`, held weakly, to be called on `queue`.
    ///
    /// - Parameters:
    ///   - listener: the object whose `stateDidChange` is called with each change.
    ///   - queue: where `stateDidChange` runs; by default a serial queue of the
    ///     listener's own.
    ///   - policy: every change (``DeliveryPolicy/all``) or only the newest while
    ///     behind (``DeliveryPolicy/latest``).
    ///   - sendingCurrentValue: deliver the current value first, as a change whose
    ///     `old` and `new` are both that value.
    ///
    /// Attaching the same object twice makes two attachments.
    @inlinable
    public func addListener<Listener: StateListener>(
        _ listener: Listener,
        on queue: DispatchQueue? = nil,
        policy: DeliveryPolicy = .all,
        sendingCurrentValue: Bool = false
    ) where Listener.Value == Value {
        let consumer = Subscription<Value>.Consumer.queue(queue ?? makeQueue()) { [weak listener] in
            guard let listener else { return nil }
            return { listener.stateDidChange($0) }
        }
        attach(
            Subscription(owner: self, policy: policy, consumer: consumer, listenerID: ObjectIdentifier(listener)),
            sendingCurrentValue: sendingCurrentValue)
    }

    /// Detaches every attachment of `listener`; changes already being delivered may
    /// still arrive on another thread.
    public func removeListener(_ listener: some StateListener<Value>) {
        let id = ObjectIdentifier(listener)
        for subscription in subscriptions.withLock({ $0 }) where subscription.listenerID == id {
            subscription.cancel()
        }
    }

    /// Calls `handler` on `queue` for each change until the returned token is
    /// cancelled or released.
    ///
    /// - Parameters:
    ///   - queue: where `handler` runs; by default a serial queue of its own.
    ///   - policy: every change or only the newest while behind, as for
    ///     ``addListener(_:on:policy:sendingCurrentValue:)``.
    ///   - sendingCurrentValue: deliver the current value first, as a change whose
    ///     `old` and `new` are both that value.
    ///   - filter: when given, only the changes for which it returns true are
    ///     buffered and delivered (the current value is sent regardless). It runs in
    ///     `modify`, on the modifying thread, with no lock held: it must be quick. A
    ///     change it rejects costs the listener no wake-up at all, which is the point:
    ///     a status that changes its date on every fix but its name rarely.
    ///   - handler: called with each change.
    @inlinable
    public func observe(
        on queue: DispatchQueue? = nil,
        policy: DeliveryPolicy = .all,
        sendingCurrentValue: Bool = false,
        filter: (@Sendable (StateChange<Value>) -> Bool)? = nil,
        _ handler: @escaping @Sendable (StateChange<Value>) -> Void
    ) -> StateObservation {
        let subscription = Subscription(
            owner: self, policy: policy,
            consumer: .queue(queue ?? makeQueue()) { handler }, filter: filter)
        attach(subscription, sendingCurrentValue: sendingCurrentValue)
        return StateObservation { subscription.cancel() }
    }

    /// The changes from now on as an async sequence; see ``StateChanges``.
    public func changes(policy: DeliveryPolicy = .all, sendingCurrentValue: Bool = false) -> StateChanges<Value> {
        let subscription = Subscription(owner: self, policy: policy, consumer: .stream)
        attach(subscription, sendingCurrentValue: sendingCurrentValue)
        return StateChanges(subscription)
    }

    /// Every change from now on as an async sequence (``DeliveryPolicy/all``).
    public var changes: StateChanges<Value> {
        changes()
    }

    /// Hands the change, one shared copy, to every listener's buffer; listeners run
    /// later, on their queues.
    @inlinable
    public override func didModify(from old: Value, to new: Value) {
        super.didModify(from: old, to: new)
        let subscriptions = subscriptions.withLock { $0 }
        guard !subscriptions.isEmpty else { return }
        let change = StateChange(old: old, new: new)
        for subscription in subscriptions where subscription.filter?(change) ?? true {
            subscription.enqueue(change)
        }
        retired.withLock { $0.keep(change) }
    }

    /// How many attachments are live (released weak listeners are counted until
    /// their next delivery finds them gone).
    package var listenerCount: Int {
        subscriptions.withLock { $0.count }
    }

    package func remove(_ subscription: Subscription<Value>) {
        subscriptions.withLock { $0.removeAll { $0 === subscription } }
    }

    @usableFromInline
    package func attach(_ subscription: Subscription<Value>, sendingCurrentValue: Bool) {
        withCurrentValue { value in
            subscriptions.withLock { $0.append(subscription) }
            if sendingCurrentValue {
                subscription.enqueue(StateChange(old: value, new: value))
            }
        }
    }

    @usableFromInline
    package func makeQueue() -> DispatchQueue {
        DispatchQueue(label: "locationd.state.\(key).listener")
    }
}
