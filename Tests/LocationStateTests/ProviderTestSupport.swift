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
    private let recorded = Locked([ProviderEvent]())

    var events: [ProviderEvent] { recorded.withLock { $0 } }

    var fixes: [Location] {
        events.compactMap { if case .fix(let location) = $0 { location } else { nil } }
    }

    func record(_ event: ProviderEvent) { recorded.withLock { $0.append(event) } }
}
