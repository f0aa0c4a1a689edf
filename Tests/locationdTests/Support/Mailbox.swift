import Foundation
import Testing

/// Collects values posted from any thread, in order, and lets a test await the
/// next one that matches, with a time limit that fails the test loudly.
final class Mailbox<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `buffer`, `waiter`, `nextWaiterID` and `expired` are only touched
    // while holding `lock`.
    private let lock = NSLock()
    private var buffer: [Element] = []
    private var waiter:
        (id: Int, matches: @Sendable (Element) -> Bool, continuation: CheckedContinuation<Element?, Never>)?
    private var nextWaiterID = 0
    private var expired: Set<Int> = []

    /// Appends `element`; wakes a waiter it matches.
    func post(_ element: Element) {
        lock.lock()
        if let waiter, waiter.matches(element) {
            self.waiter = nil
            lock.unlock()
            waiter.continuation.resume(returning: element)
            return
        }
        if waiter != nil {
            lock.unlock()
            return
        }
        buffer.append(element)
        lock.unlock()
    }

    /// Everything posted and not yet consumed.
    var pending: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return buffer
    }

    /// The next element that matches, skipping (and dropping) those that do not;
    /// records an issue and throws when none arrives within `limit`.
    func next(
        within limit: Duration = .seconds(10),
        _ description: String = "an element",
        sourceLocation: SourceLocation = #_sourceLocation,
        where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async throws -> Element {
        let id: Int = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        let timeout = Task {
            try await Task.sleep(for: limit)
            self.expire(id)
        }
        defer { timeout.cancel() }
        let found: Element? = await withCheckedContinuation { continuation in
            lock.lock()
            while !buffer.isEmpty {
                let element = buffer.removeFirst()
                if matches(element) {
                    lock.unlock()
                    continuation.resume(returning: element)
                    return
                }
            }
            if expired.contains(id) {
                lock.unlock()
                continuation.resume(returning: nil)
                return
            }
            waiter = (id, matches, continuation)
            lock.unlock()
        }
        guard let found else {
            Issue.record("timed out after \(limit) waiting for \(description)", sourceLocation: sourceLocation)
            throw MailboxTimeout(description: description)
        }
        return found
    }

    private func expire(_ id: Int) {
        lock.lock()
        guard let waiter, waiter.id == id else {
            expired.insert(id)
            lock.unlock()
            return
        }
        self.waiter = nil
        lock.unlock()
        waiter.continuation.resume(returning: nil)
    }
}

/// Thrown by ``Mailbox/next(within:_:sourceLocation:where:)`` when its time limit passes.
struct MailboxTimeout: Error, CustomStringConvertible {
    var description: String
}
