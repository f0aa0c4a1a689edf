/// Capped exponential backoff between reconnection attempts.
///
/// The first delay is `initial`; each failure doubles it up to `maximum`; a
/// successful connection calls ``reset()``.
public struct Backoff: Sendable, Hashable {
    /// The delay after the first failure.
    public var initial: Duration
    /// The longest delay between two attempts.
    public var maximum: Duration
    private var nextDelay: Duration

    /// - Parameters:
    ///   - initial: the delay after the first failure (default 0.5 s).
    ///   - maximum: the cap (default 10 s).
    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(10)) {
        precondition(initial > .zero && maximum >= initial, "backoff needs 0 < initial <= maximum")
        self.initial = initial
        self.maximum = maximum
        self.nextDelay = initial
    }

    /// The delay to wait now; the one after it is twice as long, up to the cap.
    public mutating func next() -> Duration {
        let delay = nextDelay
        nextDelay = min(delay * 2, maximum)
        return delay
    }

    /// Starts again from `initial`, after a success.
    public mutating func reset() { nextDelay = initial }
}
