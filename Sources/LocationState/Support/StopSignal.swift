import Foundation

/// A one-way "stop" flag that a blocking thread polls and waits on.
///
/// Set from a task's cancellation handler, read by a provider's reader thread.
/// `@unchecked Sendable` is safe: `stopped` is only read or written while holding
/// `condition`'s lock.
package final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false

    package init() {}

    /// Whether ``stop()`` was called.
    package var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Raises the flag and wakes any ``wait(for:)``.
    package func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling thread for `duration` or until ``stop()``; returns
    /// whether the flag is raised.
    @discardableResult
    package func wait(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.inSeconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopped, condition.wait(until: deadline) {}
        return stopped
    }
}
