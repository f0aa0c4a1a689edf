import Foundation
import LocationState

/// A clock whose `sleep` returns at once and moves its time forward by the
/// duration slept, so paced providers run as fast as the test can take them.
final class ImmediateClock: Clock, @unchecked Sendable {
    // @unchecked Sendable: `elapsed` and `sleeps` are only touched while holding `lock`.
    typealias Instant = ContinuousClock.Instant
    private let lock = NSLock()
    private let origin = ContinuousClock.now
    private var elapsed = Duration.zero
    private var sleeps: [Duration] = []

    var now: Instant { lock.withLock { origin.advanced(by: elapsed) } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Every duration slept so far, in order.
    var slept: [Duration] { lock.withLock { sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock {
            let step = max(.zero, origin.duration(to: deadline) - elapsed)
            sleeps.append(step)
            elapsed += step
        }
        await Task.yield()
    }
}

/// Collects a provider's events in order, from any thread.
final class EventRecorder: @unchecked Sendable {
    // @unchecked Sendable: `recorded` is only touched while holding `lock`.
    private let lock = NSLock()
    private var recorded: [ProviderEvent] = []

    var events: [ProviderEvent] { lock.withLock { recorded } }

    var fixes: [Location] {
        events.compactMap { if case .fix(let location) = $0 { location } else { nil } }
    }

    func record(_ event: ProviderEvent) { lock.withLock { recorded.append(event) } }
}
