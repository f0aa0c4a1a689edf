import Dispatch
import LocationState
import Testing

/// The time any single wait in these tests may take before it fails loudly: generous, since
/// the whole suite's tasks share two threads and a machine may be building beside it.
package let testTimeLimit = Duration.seconds(60)

package struct TimeLimitExceeded: Error, CustomStringConvertible {
    package let what: String
    package var description: String { "timed out after \(testTimeLimit) waiting for \(what)" }
}

/// Runs `body`, failing the test (at the caller's line) if it takes longer than
/// ``testTimeLimit``. On time-out `body`'s task is cancelled and left behind, so
/// the test fails even if `body` never returns.
package func withTimeLimit<T: Sendable>(
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let pending = Locked<CheckedContinuation<T, any Error>?>(nil)
    let takePending: @Sendable () -> CheckedContinuation<T, any Error>? = {
        pending.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
    }
    return try await withCheckedThrowingContinuation { continuation in
        pending.withLock { $0 = continuation }
        let timer = Task {
            try await Task.sleep(for: testTimeLimit)
            guard let continuation = takePending() else { return }
            let error = TimeLimitExceeded(what: what)
            Issue.record(error, sourceLocation: sourceLocation)
            continuation.resume(throwing: error)
        }
        Task {
            let result = await Result(catching: { try await body() })
            timer.cancel()
            takePending()?.resume(with: result)
        }
    }
}

extension Result where Failure == any Error {
    package init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A listener that records every change and lets a test await a condition on them.
package final class Recorder<Value: Sendable>: StateListener, Sendable {
    private struct Contents {
        var changes: [StateChange<Value>] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
    }

    private struct Waiter {
        let isSatisfied: @Sendable ([StateChange<Value>]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let contents = Locked(Contents())
    private let onChange: @Sendable (StateChange<Value>) -> Void

    /// `onChange` runs for each change, on the delivery queue, before it is recorded.
    package init(onChange: @escaping @Sendable (StateChange<Value>) -> Void = { _ in }) {
        self.onChange = onChange
    }

    package var changes: [StateChange<Value>] {
        contents.withLock { $0.changes }
    }

    package func stateDidChange(_ change: StateChange<Value>) {
        onChange(change)
        let ready = contents.withLock { contents in
            contents.changes.append(change)
            let satisfied = contents.waiters.filter { $0.value.isSatisfied(contents.changes) }
            for id in satisfied.keys { contents.waiters[id] = nil }
            return satisfied.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits, within the test time limit, until the recorded changes satisfy `condition`.
    package func wait(
        for what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        until condition: @escaping @Sendable ([StateChange<Value>]) -> Bool
    ) async throws {
        try await withTimeLimit(what, sourceLocation: sourceLocation) {
            await self.suspend(until: condition)
        }
    }

    /// Waits until `count` changes have been recorded.
    package func wait(forCount count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await wait(for: "\(count) changes", sourceLocation: sourceLocation) { $0.count >= count }
    }

    private func suspend(until condition: @escaping @Sendable ([StateChange<Value>]) -> Bool) async {
        let id = contents.withLock { contents in
            defer { contents.nextWaiterID += 1 }
            return contents.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let satisfiedNow = contents.withLock { contents in
                    if condition(contents.changes) || Task.isCancelled { return true }
                    contents.waiters[id] = Waiter(isSatisfied: condition, continuation: continuation)
                    return false
                }
                if satisfiedNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = contents.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume()
        }
    }
}

/// Resumes once every block already submitted to the serial `queue` has run.
package func drain(_ queue: DispatchQueue) async throws {
    try await withTimeLimit("queue \(queue.label) to drain") {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
    }
}
