import Foundation
import LocationState
import LocationTimeline

extension TimelineRecorder {
    /// The stays and trips overlapping `from..<to`, as ``entries(from:to:)`` gives them, when
    /// they are at most ``ControlAnswers/maxTimelineEntries``: counted in the store first, so
    /// that a range holding more is refused before any of it is read or built into an answer.
    ///
    /// - Throws: `usage` with the count and the bound when the range holds more; the store's
    ///   error when it cannot be read.
    func boundedEntries(from: Date, to: Date) throws(LocationError) -> [TimelineEntry] {
        let limit = ControlAnswers.maxTimelineEntries
        let stored = try store?.count(from: from, to: to) ?? 0
        guard stored <= limit else {
            throw .usage(
                "the range holds \(stored) stays and trips, more than the \(limit) one answer holds; ask for a shorter one"
            )
        }
        return try entries(from: from, to: to)
    }
}
