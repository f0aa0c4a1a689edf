/// The token a closure observer gets: keep it to keep observing.
///
/// Observation stops when ``cancel()`` is called or when the token is released,
/// whichever comes first. After `cancel()` returns, no further change starts to
/// be delivered, except that a delivery already running on another thread
/// completes; called on the observer's own queue (from inside the closure, for
/// instance), nothing more is delivered at all.
public final class StateObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    @usableFromInline
    package init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    deinit {
        onCancel()
    }

    /// Stops the observation; calling it again does nothing.
    public func cancel() {
        onCancel()
    }
}
