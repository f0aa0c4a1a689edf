/// Lets one start at a time through: tests that start something heavy (a Home
/// Assistant takes a core for about a minute to start) wait their turn, so that two
/// such starts never take both cores from the tests running beside them.
package actor StartGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init() {}

    /// Runs `start` when no other start holds the gate, and returns what it returns.
    package func through<T: Sendable>(_ start: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await start()
    }
}
