import Foundation
import LocationProviders
import LocationState

/// A clock whose `sleep` returns at once and moves its time forward by the
/// duration slept, so paced providers run as fast as the test can take them.
package final class ImmediateClock: Clock {
    package typealias Instant = ContinuousClock.Instant
    private let origin = ContinuousClock.now
    /// The time slept in all, and every duration slept, in order.
    private let state = Locked((elapsed: Duration.zero, sleeps: [Duration]()))

    package var now: Instant { state.withLock { origin.advanced(by: $0.elapsed) } }
    package var minimumResolution: Duration { .nanoseconds(1) }

    /// Every duration slept so far, in order.
    package var slept: [Duration] { state.withLock { $0.sleeps } }

    /// With a limit, the sleeps after that many last until the sleeper is cancelled, and the
    /// ones before return at once: a provider makes exactly as many fixes as the test reads,
    /// without a turn of the shared thread pool for each (which a crowded suite may not give
    /// it for seconds). Without one, every sleep yields.
    private let sleepsBeforeWaiting: Int?

    package init(sleepsBeforeWaiting: Int? = nil) {
        self.sleepsBeforeWaiting = sleepsBeforeWaiting
    }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let count = state.withLock { state in
            let step = max(.zero, origin.duration(to: deadline) - state.elapsed)
            state.sleeps.append(step)
            state.elapsed += step
            return state.sleeps.count
        }
        guard let limit = sleepsBeforeWaiting else { return await Task.yield() }
        if count > limit { try await Task.sleep(for: .seconds(86_400)) }
    }
}

/// Collects a provider's events in order, from any thread.
package final class EventRecorder: Sendable {
    package init() {}

    private struct Recorded {
        var events: [ProviderEvent] = []
        var fixCount = 0
        /// Who awaits how many fixes.
        var waiters: [(fixes: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let recorded = Locked(Recorded())

    package var events: [ProviderEvent] { recorded.withLock { $0.events } }

    package var fixes: [Location] {
        events.compactMap { if case .fix(let location) = $0 { location } else { nil } }
    }

    package func record(_ event: ProviderEvent) {
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
    package func waitForFixes(_ count: Int) async {
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
