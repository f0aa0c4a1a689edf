/// One change of a state's value, as a listener receives it.
///
/// The value travels with the notification: a listener never needs to read the
/// state again, and never sees a value it was not sent. For each listener,
/// `old` of a change equals `new` of the change delivered before it; see
/// ``DeliveryPolicy/latest`` for what that means when changes are coalesced.
/// A change delivered on attach (`sendingCurrentValue: true`) has `old` equal
/// to `new`: the value at the moment of attaching.
///
/// The two values live in one shared, immutable box, so that handing a change to
/// every listener's buffer copies a reference, not the values.
public struct StateChange<Value: Sendable>: Sendable {
    @usableFromInline package let values: Values

    /// The value before the change.
    @inlinable public var old: Value { values.old }
    /// The value after the change.
    @inlinable public var new: Value { values.new }

    @inlinable
    public init(old: Value, new: Value) {
        values = Values(old: old, new: new)
    }

    /// The storage shared by all copies of a change.
    @usableFromInline
    package final class Values: Sendable {
        @usableFromInline let old: Value
        @usableFromInline let new: Value

        @inlinable
        init(old: Value, new: Value) {
            self.old = old
            self.new = new
        }
    }
}

extension StateChange: Equatable where Value: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.values === rhs.values || (lhs.old == rhs.old && lhs.new == rhs.new)
    }
}

extension StateChange: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(old)
        hasher.combine(new)
    }
}
