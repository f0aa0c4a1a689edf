import LocationState
import Testing

/// A clock that stands still until the test moves it: `sleep` suspends until
/// ``advance(by:)`` has moved the time to the sleeper's deadline.
///
/// A test can also wait until some task sleeps towards a given instant
/// (``waitForSleeper(until:)``): the proof that the task has looked at the clock and
/// decided to wait, without the test sleeping itself.
package final class ManualClock: Clock, Sendable {
    package typealias Instant = ContinuousClock.Instant

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Contents {
        var now: Instant
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let contents = Locked(Contents(now: ContinuousClock.now))
    /// The time at creation; ``advance(by:)`` moves from here.
    package let start: Instant

    package init() {
        start = contents.withLock { $0.now }
    }

    package var now: Instant { contents.withLock { $0.now } }
    package var minimumResolution: Duration { .nanoseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = contents.withLock { contents in
            defer { contents.nextID += 1 }
            return contents.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let due = contents.withLock { contents in
                    if deadline <= contents.now { return true }
                    contents.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            contents.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(
                throwing: CancellationError())
        }
    }

    /// Moves the time forward and wakes every sleeper whose deadline has come.
    package func advance(by duration: Duration) {
        let woken = contents.withLock { contents in
            contents.now = contents.now.advanced(by: duration)
            let due = contents.sleepers.filter { $0.value.deadline <= contents.now }
            for id in due.keys { contents.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits, within the test time limit, until a task sleeps until `deadline` (from ``start``).
    package func waitForSleeper(until deadline: Duration, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let instant = start.advanced(by: deadline)
        try await withTimeLimit("a sleeper until \(deadline)", sourceLocation: sourceLocation) {
            while !self.contents.withLock({ $0.sleepers.values.contains { $0.deadline == instant } }) {
                await Task.yield()
            }
        }
    }
}
