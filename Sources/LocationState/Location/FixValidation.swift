/// What the one validation every fix passes before the state made of it
/// (``Location/validated()``): the fix the state may hold, or why there is none.
public struct FixValidation: Sendable, Hashable {
    /// A field removed from a fix, and why.
    public struct Problem: Sendable, Hashable {
        /// The field's TPV name (`lat`, `altMSL`, `time`, ...).
        public var field: String
        /// What is wrong with it, in words (`latitude 99.5 is outside -90...90`).
        public var reason: String
    }

    /// The fix with every field outside its range removed; nil when it was rejected.
    public var location: Location?
    /// Why the fix was rejected; nil when it was accepted.
    public var rejection: Problem?
    /// The fields removed from an accepted fix.
    public var dropped: [Problem]
}
