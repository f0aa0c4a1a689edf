import Foundation

/// A clock that reads a replayed track's own time: it stands still between records and
/// moves when the replay reaches a record with a later time (``advance(to:)``).
///
/// The ``LocationCoordinator`` of a replay measures its freshness timeout on this clock,
/// so a gap in the track longer than the timeout makes the fix stale, as it would have
/// in the daemon, however fast the track is replayed.
///
/// - Its instants never go back: a record older than the one before (the next `--loop`,
///   a receiver reset) leaves the instant where it is and only sets ``date``.
/// - Until the first timed record, ``date`` is the time the clock was made.
/// - `sleep` returns once the track time has reached the deadline (or at once if it has).
public final class TrackClock: Clock, Sendable {
    /// A point in the track's time: the time elapsed in the track since the clock was made.
    public struct Instant: InstantProtocol {
        /// Track time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// The longest step forward taken at once (about 31 years): a corrupt time further
    /// ahead moves the clock this far, so that its instants stay representable.
    static let longestStep = 1e9

    private struct Contents {
        var now = Instant(offset: .zero)
        var date: Date
        var sleepers: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextSleeper = 0
    }

    private let contents: Locked<Contents>

    /// A clock at the start of a track; ``date`` reads `start` until the first record.
    public init(start: Date = Date()) {
        contents = Locked(Contents(date: start))
    }

    public var now: Instant { contents.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The time of the latest record reached (or the start time before the first).
    public var date: Date { contents.withLock { $0.date } }

    /// Moves the clock to a record's time: forward by the time since the record before,
    /// not at all when it is older; wakes the sleepers whose deadline has come.
    public func advance(to time: Date) {
        let woken = contents.withLock { contents -> [CheckedContinuation<Void, any Error>] in
            let step = time.timeIntervalSince(contents.date)
            contents.date = time
            guard step > 0 else { return [] }
            contents.now = contents.now.advanced(by: .seconds(min(step, TrackClock.longestStep)))
            guard !contents.sleepers.isEmpty else { return [] }
            let now = contents.now
            let due = contents.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { contents.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns when the track time reaches `deadline`; throws `CancellationError` when the
    /// task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = contents.withLock { contents in
            defer { contents.nextSleeper += 1 }
            return contents.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Under the lock, so that a cancellation handler that ran before finds this
                // sleeper registered, or this check finds the task cancelled.
                let result = contents.withLock { contents -> Result<Bool, CancellationError> in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= contents.now { return .success(true) }
                    contents.sleepers[id] = (deadline, continuation)
                    return .success(false)
                }
                switch result {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            contents.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }
}
