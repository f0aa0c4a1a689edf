import Foundation
import LocationState
import Logging

/// Motion and the timeline from the device's fixes: the daemon's listener of `deviceLocation`.
///
/// Feeds each fix to a ``MotionTracker`` (simulated fixes excepted: they never become
/// history or motion, see ``Location/becomesHistory``) and publishes what it says: the motion in
/// ``motion``, each closed stay or trip and each change of motion in ``events``. Closed
/// stays and trips are stored as they close, with the tracker's state, one transaction
/// a fix; the state alone at most every ``saveInterval`` seconds of fixes otherwise, and
/// at ``close()``. At start the stored state is taken up again, so an open stay goes on
/// across a restart.
///
/// A store that fails (a full disk) is logged once per episode; the motion goes on. Fixes
/// the tracker finds misdated are logged the first time, then at the 10th, 100th, ... (the
/// counts are in ``MotionTracker/ignored``, shown by the status); so is each time the
/// fixes' clock went back for good and the tracker started over.
///
/// - Important: deliver changes on one serial queue (the listeners' queue).
public final class TimelineRecorder: StateListener, Sendable {
    public typealias Value = Location?

    /// What the device is doing.
    public let motion: MonitoredState<Motion>
    /// The last thing that happened: a change of motion, a stay or a trip closed (nil before any).
    public let events: MonitoredState<TimelineEvent?>
    /// The timeline on disk, when there is one.
    public let store: TimelineStore?
    /// What names a stay when it closes (and the stays read without a name).
    public let naming: StayNaming?
    private let logger: Logger
    private let state: Locked<RecorderState>

    /// Seconds of fixes between two saves of the tracker's state when nothing closes.
    public static let saveInterval = 5.0

    /// Seconds a stored state may lie ahead of the system clock without a word (as the
    /// last fix's store takes a fix).
    package static let clockTolerance = 60.0

    private struct RecorderState {
        var tracker: MotionTracker
        /// The time of the fix at the last save.
        var savedAt: Date?
        /// When (by the clock) the last fix arrived.
        var receivedAt: Date?
        var failing = false
        /// Closed stays and trips a failed write did not store, written with the next (bounded).
        var unsaved: [TimelineEvent] = []
        var namer: TimelineNamer
    }

    /// Starts from the state stored in `store` (with `configuration`, which may have
    /// changed since), or afresh. A stored state whose last fix lies ahead of `now` (the
    /// system clock) is named in the log: the fixes that come decide whether it goes on
    /// (the clock was behind) or starts over (the stored time was misdated).
    public init(
        configuration: MotionConfiguration, store: TimelineStore?, logger: Logger, naming: StayNaming? = nil,
        now: Date = Date()
    ) {
        var tracker = MotionTracker(configuration: configuration)
        do {
            if let stored = try store?.tracker() {
                tracker = stored
                tracker.configuration = configuration
            }
        } catch {
            logger.warning(
                "cannot read the motion state in \(store?.url.path ?? ""): \(error.message); starting afresh")
        }
        if let last = tracker.lastFixTime, last.timeIntervalSince(now) > Self.clockTolerance {
            logger.warning(
                """
                the motion state in \(store?.url.path ?? "") ends at a fix dated \(UTCCalendar.iso8601(last)), \
                ahead of the system clock: it starts over if the fixes that come are dated before it
                """)
        }
        self.store = store
        self.naming = naming
        self.logger = logger
        var namer = TimelineNamer(naming: naming)
        let restored = namer.name([.motion(tracker.motion)], tracker: tracker)
        state = Locked(RecorderState(tracker: tracker, savedAt: tracker.lastFixTime, namer: namer))
        motion = MonitoredState(key: "motion", initialValue: tracker.motion)
        events = MonitoredState(key: "timelineEvents", initialValue: nil)
        if case .motion(let named)? = restored.first { motion.modify { $0 = withPlaceName(named) } }
    }

    /// `motion` with the user's name for the place it is stopped at, when the stored stays
    /// and the open one make a place the user named (read from the store at a stop only);
    /// otherwise as it is.
    private func withPlaceName(_ motion: Motion) -> Motion {
        guard let store, case .stopped(let since, let latitude, let longitude, _) = motion else { return motion }
        let stay =
            tracker.openStay.flatMap { $0.start == since ? $0 : nil }
            ?? Stay(start: since, end: since, latitude: latitude, longitude: longitude, radius: 0, fixes: 1)
        guard let index = try? store.placeIndex(extra: [stay]), let id = index.place(of: stay),
            let name = index.records[id]?.name
        else { return motion }
        return motion.named(name)
    }

    /// Names the motion again, after the user renamed a place (it may be the one the device is at).
    public func placesRenamed() {
        let current = motion.value
        guard current.stoppedSince != nil else { return }
        let named = state.withLock { state in
            state.namer.name([.motion(current.named(nil))], tracker: state.tracker)
        }
        guard case .motion(let generic)? = named.first else { return }
        let renamed = withPlaceName(generic)
        guard renamed != current else { return }
        motion.modify { $0 = renamed }
        events.modify { $0 = .motion(renamed) }
    }

    /// A copy of the tracker as it is now.
    public var tracker: MotionTracker { state.withLock { $0.tracker } }

    /// The stays and trips overlapping `from..<to`: the stored ones and the tracker's open ones.
    public func entries(from: Date, to: Date) throws(LocationError) -> [TimelineEntry] {
        let pending = tracker.pendingEntries
        guard let store else {
            return pending.filter { $0.end >= from && $0.start < to }.map { $0.named(by: naming) }.withTripNames()
        }
        let entries = try store.entries(from: from, to: to, pending: pending).map { $0.named(by: naming) }
        let stays = entries.compactMap { if case .stay(let stay) = $0 { stay } else { nil } }
        return try store.placeIndex(extra: stays).apply(to: entries)
    }

    public func stateDidChange(_ change: StateChange<Location?>) {
        guard let fix = change.new, fix.becomesHistory else { return }
        ingest(fix)
    }

    /// Takes one fix, received at `now`.
    public func ingest(_ fix: Location, now: Date = Date()) {
        let (produced, snapshot, before) = state.withLock { state -> ([TimelineEvent], MotionTracker?, MotionTracker) in
            let before = state.tracker
            let produced = state.namer.name(state.tracker.ingest(fix), tracker: state.tracker)
            state.receivedAt = now
            guard let time = state.tracker.lastFixTime else { return (produced, nil, before) }
            let due = state.savedAt.map { time.timeIntervalSince($0) >= Self.saveInterval || time < $0 } ?? true
            guard !produced.isEmpty || due else { return (produced, nil, before) }
            state.savedAt = time
            return (produced, state.tracker, before)
        }
        logTimes(before: before, after: snapshot ?? tracker)
        publish(produced)
        if let snapshot { save(produced, snapshot) }
    }

    /// Logs a misdated fix and a clock gone back: the first time, then at the 10th, 100th, ...
    private func logTimes(before: MotionTracker, after: MotionTracker) {
        let (was, now) = (before.ignored, after.ignored)
        if LogThrottle.passesPowerOfTen(from: was.misdated, to: now.misdated), let time = after.lastMisdated,
            let used = after.lastFixTime
        {
            logger.warning(
                """
                ignoring a misdated fix, dated \(UTCCalendar.iso8601(time)): more than the stay gap away from \
                the fixes around it (the last one used is dated \(UTCCalendar.iso8601(used))); is the \
                receiver's date right? (\(now.misdated) so far)
                """)
        }
        if LogThrottle.passesPowerOfTen(from: was.timeResets, to: now.timeResets), let from = before.lastFixTime,
            let to = after.lastFixTime
        {
            logger.warning(
                """
                the fixes' time went back from \(UTCCalendar.iso8601(from)) to \(UTCCalendar.iso8601(to)) and \
                stays there (a GPS week rollover? a replay starting over?): the motion starts over \
                (\(now.timeResets) so far)
                """)
        }
    }

    /// Ends what a gap would end when no fix came for longer than the stay gap (see
    /// ``MotionTracker/expire(at:)``). Measured by the clock since the last fix arrived,
    /// not against the fixes' own times, which a replayed track has in the past.
    public func expire(now: Date = Date()) {
        let (produced, snapshot) = state.withLock { state -> ([TimelineEvent], MotionTracker) in
            guard let last = state.tracker.lastFixTime, let receivedAt = state.receivedAt else {
                return ([], state.tracker)
            }
            let expired = state.tracker.expire(at: last.addingTimeInterval(now.timeIntervalSince(receivedAt)))
            let produced = state.namer.name(expired, tracker: state.tracker)
            return (produced, state.tracker)
        }
        guard !produced.isEmpty else { return }
        publish(produced)
        save(produced, snapshot)
    }

    /// Saves the tracker's state.
    public func close() throws(LocationError) {
        try store?.record([], tracker: tracker)
    }

    private func publish(_ produced: [TimelineEvent]) {
        for var event in produced {
            if case .motion(let new) = event {
                let named = withPlaceName(new)
                event = .motion(named)
                motion.modify { $0 = named }
            }
            events.modify { $0 = event }
        }
    }

    /// Closed stays and trips kept for a store that fails, at most: a day of short trips and stays.
    package static let unsavedLimit = 10_000

    private func save(_ produced: [TimelineEvent], _ tracker: MotionTracker) {
        guard let store else { return }
        let closed = produced.filter { if case .motion = $0 { false } else { true } }
        let waiting = state.withLock { $0.unsaved } + closed
        do {
            try store.record(waiting, tracker: tracker)
            let recovered = state.withLock { state in
                defer { (state.failing, state.unsaved) = (false, []) }
                return state.failing
            }
            if recovered { logger.notice("timeline \(store.url.path) is written again") }
        } catch {
            let first = state.withLock { state in
                defer { (state.failing, state.unsaved) = (true, Array(waiting.suffix(Self.unsavedLimit))) }
                return !state.failing
            }
            if first {
                logger.error("cannot store the timeline: \(error.message); keeping what closes in memory until it can")
            }
        }
    }
}
