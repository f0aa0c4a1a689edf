import LocationState

/// How many fixes the daemon has seen, and the last one.
final class FixCounter: Sendable {
    private let state = Locked<(fixes: Int, last: Location?)>((0, nil))

    /// Fixes seen since start.
    var fixes: Int { state.withLock { $0.fixes } }
    /// The newest fix seen since start.
    var lastKnown: Location? { state.withLock { $0.last } }

    func count(_ fix: Location) {
        state.withLock { $0 = ($0.fixes + 1, fix) }
    }
}
