import Foundation
import LocationState
import Synchronization

/// A clock that reads a replayed track's own time: it stands still between records and
/// moves when the replay reaches a record with a later time (``advance(to:)``).
///
/// The ``LocationCoordinator`` of a replay measures its freshness timeout on this clock,
/// so a gap in the track longer than the timeout makes the fix stale, as it would have
/// in the daemon, however fast the track is replayed.
///
/// - Its instants never go back: a record older than the one before (the next `--loop`,
///   a receiver reset) leaves the instant where it is and only sets ``date``.
/// - Until the first timed record, ``date`` is the time the clock was made, and
///   ``hasTime`` is false.
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
    package static let longestStep = 1e9

    /// The instant, nanoseconds of track time since the clock was made. Only ``advance(to:)``
    /// writes it (one thread, the replay's); read without a lock by ``now``, once per fix.
    private let nanoseconds = Atomic<Int64>(0)
    /// ``date`` as the bits of its seconds since 1970.
    private let dateBits: Atomic<UInt64>
    /// Whether a record's time has reached the clock (``hasTime``).
    private let advanced = Atomic<Bool>(false)
    /// Whether a task has ever slept on the clock: until then ``advance(to:)`` takes no lock.
    private let hasSleepers = Atomic<Bool>(false)
    private let sleepers = Locked(Sleepers())

    private struct Sleepers {
        var waiting: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextID = 0
    }

    /// A clock at the start of a track; ``date`` reads `start` until the first record.
    public init(start: Date = Date()) {
        dateBits = Atomic(start.timeIntervalSince1970.bitPattern)
    }

    public var now: Instant { Instant(offset: .nanoseconds(nanoseconds.load(ordering: .sequentiallyConsistent))) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The time of the latest record reached (or the start time before the first).
    public var date: Date {
        Date(timeIntervalSince1970: Double(bitPattern: dateBits.load(ordering: .sequentiallyConsistent)))
    }

    /// Whether a record's time has reached the clock: until then ``date`` is only the time
    /// the clock was made, no time of the track's.
    public var hasTime: Bool { advanced.load(ordering: .sequentiallyConsistent) }

    /// Moves the clock to a record's time: forward by the time since the record before,
    /// not at all when it is older; wakes the sleepers whose deadline has come.
    ///
    /// - Important: from one thread at a time (the replay's).
    public func advance(to time: Date) {
        let step = time.timeIntervalSince(date)
        advanced.store(true, ordering: .sequentiallyConsistent)
        dateBits.store(time.timeIntervalSince1970.bitPattern, ordering: .sequentiallyConsistent)
        guard step > 0 else { return }
        let (sum, overflow) = self.nanoseconds.load(ordering: .sequentiallyConsistent)
            .addingReportingOverflow(Int64(min(step, TrackClock.longestStep) * 1e9))
        let nanoseconds = overflow ? Int64.max : sum
        self.nanoseconds.store(nanoseconds, ordering: .sequentiallyConsistent)
        // A sleeper sets the flag, then reads the time; this stores the time, then reads the
        // flag: one of the two sees the other's write, so no sleeper is missed.
        guard hasSleepers.load(ordering: .sequentiallyConsistent) else { return }
        let now = Instant(offset: .nanoseconds(nanoseconds))
        let woken = sleepers.withLock { sleepers -> [CheckedContinuation<Void, any Error>] in
            let due = sleepers.waiting.filter { $0.value.deadline <= now }
            for id in due.keys { sleepers.waiting[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns when the track time reaches `deadline`; throws `CancellationError` when the
    /// task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = sleepers.withLock { sleepers in
            defer { sleepers.nextID += 1 }
            return sleepers.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Under the lock, so that a cancellation handler that ran before finds this
                // sleeper registered, or this check finds the task cancelled.
                let result = sleepers.withLock { sleepers -> Result<Bool, CancellationError> in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    sleepers.waiting[id] = (deadline, continuation)
                    hasSleepers.store(true, ordering: .sequentiallyConsistent)
                    guard deadline <= now else { return .success(false) }
                    sleepers.waiting[id] = nil
                    return .success(true)
                }
                switch result {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            sleepers.withLock { $0.waiting.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }
}
