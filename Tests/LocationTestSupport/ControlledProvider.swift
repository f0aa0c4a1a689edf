import Foundation
import LocationProviders
import LocationState

/// A provider whose events the test sends by hand; `run` lasts until cancelled.
package final class ControlledProvider: LocationProvider {
    package init() {}

    private struct State {
        var emit: (@Sendable (ProviderEvent) -> Void)?
        var queued: [ProviderEvent] = []
    }

    private let state = Locked(State())

    /// Delivers `event` now, or as soon as `run` starts.
    package func send(_ event: ProviderEvent) {
        state.withLock { state in
            guard let emit = state.emit else { return state.queued.append(event) }
            emit(event)
        }
    }

    package func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        state.withLock { state in
            state.emit = emit
            state.queued.forEach(emit)
            state.queued = []
        }
        let (never, _) = AsyncStream.makeStream(of: Never.self)
        for await _ in never {}
        state.withLock { $0.emit = nil }
    }
}
