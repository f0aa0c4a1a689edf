/// A keyed value that changes only through ``modify(_:)``, safely from any thread.
///
/// Modifications are serialized: each one sees the value the previous one left,
/// and ``didModify(from:to:)`` is called for each in the order they were
/// applied. Every `modify` counts as a change, even one that leaves the value
/// equal to what it was. Use ``MonitoredState`` to be told about changes and
/// ``PersistentState`` to keep the value across runs.
public class State<Value: Sendable>: @unchecked Sendable {
    // `@unchecked` only because Swift cannot check a non-final class: every stored
    // property here is a `let` of a `Sendable` type, and the subclasses (all in
    // this module, the class is not `open`) keep that rule.

    /// The name of the state, unique among the states that are persisted together.
    public let key: String
    @usableFromInline package let storage: Locked<Value>

    /// Creates a state holding `initialValue`.
    public init(key: String, initialValue: Value) {
        self.key = key
        storage = Locked(initialValue)
    }

    /// The current value: a snapshot, which may be outdated as soon as it is read.
    ///
    /// - Important: do not read it inside `modify`'s body or `didModify`
    ///   (deadlock); use the `inout` value or the arguments instead.
    @inlinable
    public var value: Value {
        storage.withLock { $0 }
    }

    /// Changes the value in place and returns what `body` returns.
    ///
    /// `body` runs while the state's lock is held, so modifications from several
    /// threads apply one after the other and none is lost. If `body` throws, the
    /// value is left unchanged and nobody is notified.
    ///
    /// - Important: `body` must be quick and must not touch this state (read
    ///   `value`, call `modify`): that would deadlock. Modifying the state from
    ///   a listener is fine, because listeners run without the lock.
    @inlinable @discardableResult
    public func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock { value in
            let old = value
            var succeeded = false
            defer {
                if !succeeded { value = old }
            }
            let result = try body(&value)
            succeeded = true
            didModify(from: old, to: value)
            return result
        }
    }

    /// Called after each modification, in the order modifications were applied.
    ///
    /// The base implementation does nothing; subclasses override it and call
    /// `super`. It runs with the state's lock held, on the modifying thread.
    ///
    /// - Important: an override must be quick and must not touch this state, nor
    ///   call code it does not control: hand the change over and return.
    public func didModify(from old: Value, to new: Value) {}

    /// Replaces the value with `newValue`: ``modify(_:)`` with `{ $0 = newValue }`, but
    /// the old value moves out of the storage instead of being copied, and is dropped
    /// after ``didModify(from:to:)``: one copy of the value less per change.
    @inlinable
    package func replace(with newValue: Value) {
        storage.withLock { value in
            var old = newValue
            swap(&value, &old)
            didModify(from: old, to: value)
        }
    }

    /// Runs `body` with the current value while the state's lock is held, so that
    /// no modification happens meanwhile; subclasses use it to attach listeners.
    @usableFromInline
    package func withCurrentValue<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        try storage.withLock { try body($0) }
    }
}

/// Replaces the value of `state` with `newValue`: `deviceLocation ~> fix`.
///
/// The same as `state.modify { $0 = newValue }`, and it notifies the same way.
/// The operator is the standard library's `~>`, whose precedence is unrelated to
/// arithmetic: parenthesize an expression on the right, `state ~> (count + 1)`.
@inlinable
public func ~> <Value>(state: State<Value>, newValue: Value) {
    state.replace(with: newValue)
}
