/// An object that is told about every change of a ``MonitoredState``.
///
/// Attach it with ``MonitoredState/addListener(_:on:policy:sendingCurrentValue:)``.
/// The state holds the listener weakly: once the listener is released, it
/// receives nothing more and is removed.
///
/// The contract every state keeps:
/// - Ordering: ``stateDidChange(_:)`` is called with the changes in the order
///   they were made (all of them with ``DeliveryPolicy/all``, the newest when
///   behind with ``DeliveryPolicy/latest``).
/// - Threading: calls happen on the `DispatchQueue` given when attaching, never
///   with a lock of the state held, and never overlap for one attachment, even
///   on a concurrent queue. The call may modify any state, including the one
///   that called it.
/// - A slow listener delays only itself: neither `modify` nor other listeners
///   wait for it.
public protocol StateListener<Value>: AnyObject, Sendable {
    /// The type of the value the listener observes.
    associatedtype Value: Sendable

    /// Receives one change; see the protocol's contract for order and threading.
    func stateDidChange(_ change: StateChange<Value>)
}
