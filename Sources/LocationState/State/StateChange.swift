/// One change of a state's value, as a listener receives it.
///
/// The value travels with the notification: a listener never needs to read the
/// state again, and never sees a value it was not sent. For each listener,
/// `old` of a change equals `new` of the change delivered before it; see
/// ``DeliveryPolicy/latest`` for what that means when changes are coalesced.
/// A change delivered on attach (`sendingCurrentValue: true`) has `old` equal
/// to `new`: the value at the moment of attaching.
public struct StateChange<Value: Sendable>: Sendable {
    /// The value before the change.
    public let old: Value
    /// The value after the change.
    public let new: Value

    public init(old: Value, new: Value) {
        self.old = old
        self.new = new
    }
}

extension StateChange: Equatable where Value: Equatable {}
extension StateChange: Hashable where Value: Hashable {}
