import Foundation
import LocationState
import Testing

/// Collects values posted from any thread, in order, and lets a test await the
/// next one that matches, with a time limit that fails the test loudly.
package final class Mailbox<Element: Sendable>: Sendable {
    package init() {}

    private struct State {
        var buffer: [Element] = []
        var waiter: (id: Int, matches: @Sendable (Element) -> Bool, continuation: CheckedContinuation<Element?, Never>)?
        var nextWaiterID = 0
        var expired: Set<Int> = []
    }

    private let state = Locked(State())

    /// Appends `element`; wakes a waiter it matches.
    package func post(_ element: Element) {
        let woken: CheckedContinuation<Element?, Never>? = state.withLock { state in
            if let waiter = state.waiter, waiter.matches(element) {
                state.waiter = nil
                return waiter.continuation
            }
            if state.waiter == nil { state.buffer.append(element) }
            return nil
        }
        woken?.resume(returning: element)
    }

    /// Everything posted and not yet consumed.
    package var pending: [Element] { state.withLock { $0.buffer } }

    /// The next element that matches, skipping (and dropping) those that do not;
    /// records an issue and throws when none arrives within `limit`.
    package func next(
        within limit: Duration = .seconds(30),
        _ description: String = "an element",
        sourceLocation: SourceLocation = #_sourceLocation,
        where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async throws -> Element {
        let id: Int = state.withLock {
            $0.nextWaiterID += 1
            return $0.nextWaiterID
        }
        let timeout = Task {
            try await Task.sleep(for: limit)
            self.expire(id)
        }
        defer { timeout.cancel() }
        let found: Element? = await withCheckedContinuation { continuation in
            // What to resume with at once, outside the lock: an element, or nil when expired.
            let now: Element?? = state.withLock { state in
                while !state.buffer.isEmpty {
                    let element = state.buffer.removeFirst()
                    if matches(element) { return .some(element) }
                }
                if state.expired.contains(id) { return .some(nil) }
                state.waiter = (id, matches, continuation)
                return .none
            }
            if let now { continuation.resume(returning: now) }
        }
        guard let found else {
            Issue.record("timed out after \(limit) waiting for \(description)", sourceLocation: sourceLocation)
            throw MailboxTimeout(description: description)
        }
        return found
    }

    private func expire(_ id: Int) {
        let expired: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard let waiter = state.waiter, waiter.id == id else {
                state.expired.insert(id)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        expired?.resume(returning: nil)
    }
}

/// Thrown by ``Mailbox/next(within:_:sourceLocation:where:)`` when its time limit passes.
package struct MailboxTimeout: Error, CustomStringConvertible {
    package var description: String
}
