import Foundation
import LocationState

/// A clock whose `sleep` returns at once and moves its time forward by the
/// duration slept, so paced providers run as fast as the test can take them.
final class ImmediateClock: Clock {
    typealias Instant = ContinuousClock.Instant
    private let origin = ContinuousClock.now
    /// The time slept in all, and every duration slept, in order.
    private let state = Locked((elapsed: Duration.zero, sleeps: [Duration]()))

    var now: Instant { state.withLock { origin.advanced(by: $0.elapsed) } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Every duration slept so far, in order.
    var slept: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            let step = max(.zero, origin.duration(to: deadline) - state.elapsed)
            state.sleeps.append(step)
            state.elapsed += step
        }
        await Task.yield()
    }
}

/// Collects a provider's events in order, from any thread.
final class EventRecorder: Sendable {
    private struct Recorded {
        var events: [ProviderEvent] = []
        var fixCount = 0
        /// Who awaits how many fixes.
        var waiters: [(fixes: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let recorded = Locked(Recorded())

    var events: [ProviderEvent] { recorded.withLock { $0.events } }

    var fixes: [Location] {
        events.compactMap { if case .fix(let location) = $0 { location } else { nil } }
    }

    func record(_ event: ProviderEvent) {
        let ready = recorded.withLock { state in
            state.events.append(event)
            if case .fix = event { state.fixCount += 1 }
            let ready = state.waiters.filter { $0.fixes <= state.fixCount }
            state.waiters.removeAll { $0.fixes <= state.fixCount }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once `count` fixes are recorded, suspended meanwhile: a test that spins on
    /// ``fixes`` with `Task.yield()` takes a turn of a crowded pool from the provider it waits for.
    func waitForFixes(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let done = recorded.withLock { state in
                guard state.fixCount < count else { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}
