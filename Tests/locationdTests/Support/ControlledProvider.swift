import Foundation
import LocationState

/// A provider whose events the test sends by hand; `run` lasts until cancelled.
final class ControlledProvider: LocationProvider, @unchecked Sendable {
    // @unchecked Sendable: `emit` and `queued` are only touched while holding `lock`.
    private let lock = NSLock()
    private var emit: (@Sendable (ProviderEvent) -> Void)?
    private var queued: [ProviderEvent] = []

    /// Delivers `event` now, or as soon as `run` starts.
    func send(_ event: ProviderEvent) {
        lock.lock()
        guard let emit else {
            queued.append(event)
            lock.unlock()
            return
        }
        emit(event)
        lock.unlock()
    }

    func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        lock.withLock {
            self.emit = emit
            queued.forEach(emit)
            queued = []
        }
        let (never, _) = AsyncStream.makeStream(of: Never.self)
        for await _ in never {}
        lock.withLock { self.emit = nil }
    }
}
