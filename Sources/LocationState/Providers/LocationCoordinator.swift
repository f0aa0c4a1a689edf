import Foundation
import LocationState
import Logging

/// Feeds `deviceLocation` and the provider status from a provider's events and a freshness timer.
///
/// `deviceLocation` holds the current fix or nil. It goes nil when the receiver
/// reports no fix, when the source is lost, and when no fix arrived within
/// `freshnessTimeout` of the last one: a stale fix is never presented as
/// current. The status changes only through ``ProviderStatus/reduce(_:_:)``; the
/// coordinator carries out each transition's side effects: it writes the states
/// (only when their value changes), moves the freshness deadline on every fix,
/// and logs what ``ProviderStatus/logLine(after:)`` names.
///
/// The freshness timer is one task per live period, not one per fix: a fix only
/// moves the deadline under the lock, and the task, when it wakes, sleeps again
/// until the deadline unless it has passed. Every event first applies a timeout
/// whose deadline has passed, so a late timer never lets a fix skip the stale
/// period before it. A replay runs without the task (``FreshnessTimer/nextEvent``),
/// on its track's clock (``TrackClock``): the timeout is applied when the next
/// record shows that the track's time has passed it.
///
/// ```swift
/// let coordinator = LocationCoordinator(freshnessTimeout: .seconds(5))
/// coordinator.deviceLocation.addListener(tileLogger)
/// try await coordinator.run(AutomaticProvider(gpsd: GPSDProvider()))
/// ```
///
/// - Important: events are applied one at a time, in arrival order, under a
///   lock, on the thread that delivers them (gpsd's reader thread, the timer's
///   task). The states hand changes to their listeners' queues, so nothing here
///   waits for a listener.
public final class LocationCoordinator: Sendable {
    /// The current fix, or nil when there is none (no fix, stale, source lost).
    public let deviceLocation: MonitoredState<Location?>
    /// What the source is doing (source in use, connected or not, live, stale, lost...).
    public let status: MonitoredState<ProviderStatus>
    /// How long a fix stays current without a newer one.
    public let freshnessTimeout: Duration
    private let timer: FreshnessTimer
    private let clock: any Clock<Duration>
    /// The time on `clock` since the coordinator was made; freshness deadlines are on this scale.
    private let elapsed: @Sendable () -> Duration
    private let now: @Sendable () -> Date?
    private let logger: Logger
    private let freshness: Locked<Freshness>
    private let validation = Locked(ValidationCounts())

    /// How the coordinator notices that the freshness timeout has passed.
    public enum FreshnessTimer: Sendable {
        /// A task sleeps on the clock until the deadline (the daemon).
        case task
        /// Only when the next event comes, its time being past the deadline (a replay,
        /// whose clock is the track's own and moves only with its records).
        case nextEvent
    }

    /// A change the coordinator made, as ``receive(_:_:)`` reports it.
    public enum Transition: Sendable, Hashable {
        /// The status became this value, at this time: the event's (`now`), or for a timeout
        /// the moment it passed; nil while `now` knows no time (a replay before its track's
        /// first time). Only a change of its state or source counts, not a live status's
        /// newer `lastFix` (each fix's).
        case status(ProviderStatus, at: Date?)
        /// The current fix: a new one, or nil when the location became unknown.
        case location(Location?)
    }

    /// What the coordinator keeps between events.
    private struct Freshness: Sendable {
        var status: ProviderStatus
        var showsLocation = false
        /// When the shown fix goes stale (on the `elapsed` scale), while live.
        var deadline: Duration?
        /// Identifies the running timer task; a cancelled one that wakes finds a newer number.
        var timer = 0
        var timerTask: Task<Void, Never>?
    }

    /// - Parameters:
    ///   - deviceLocation: the state to keep the current fix in.
    ///   - status: the state to keep the status in; its value is the start status
    ///     (`.connecting(.gpsd)` by default).
    ///   - freshnessTimeout: how long a fix stays current without a newer one (default 5 s).
    ///   - clock: measures the timeout.
    ///   - timer: how the timeout is noticed: a task sleeping on `clock` (default), or
    ///     only at the next event (for a clock that moves only with the events).
    ///   - now: the wall clock: when each status change happened; nil while no time is
    ///     known (a replay's track before its first time).
    ///   - logger: where status transitions are logged.
    public init(
        deviceLocation: MonitoredState<Location?> = MonitoredState(key: "deviceLocation", initialValue: nil),
        status: MonitoredState<ProviderStatus> = MonitoredState(
            key: "providerStatus", initialValue: .connecting(.gpsd)),
        freshnessTimeout: Duration = .seconds(5),
        clock: any Clock<Duration> = ContinuousClock(),
        timer: FreshnessTimer = .task,
        now: @escaping @Sendable () -> Date? = { Date() },
        logger: Logger = Logger(label: "locationd.freshness")
    ) {
        precondition(freshnessTimeout > .zero, "the freshness timeout must be positive")
        self.deviceLocation = deviceLocation
        self.status = status
        self.freshnessTimeout = freshnessTimeout
        self.clock = clock
        self.timer = timer
        elapsed = Self.stopwatch(clock)
        self.now = now
        self.logger = logger
        freshness = Locked(Freshness(status: status.value))
    }

    /// Runs `provider` until it ends or the task is cancelled, applying its events.
    public func run(_ provider: any LocationProvider) async throws {
        defer { freshness.withLock { $0.timerTask?.cancel() } }
        try await provider.run { [self] event in receive(event) }
    }

    /// Applies one provider event (``run(_:)`` calls it for each).
    public func receive(_ event: ProviderEvent) {
        receive(event) { _ in }
    }

    /// Applies one provider event and tells `observe`, in order, each change it made: a
    /// timeout whose deadline had passed first, then the event's status and location.
    ///
    /// - Important: `observe` runs under the coordinator's lock: it must be quick and must
    ///   not call the coordinator.
    public func receive(_ event: ProviderEvent, _ observe: (Transition) -> Void) {
        switch event {
        case .fix(let location):
            guard let fix = validated(location) else { return }
            apply(.fix(fix), at: now(), fix: fix, observe)
        case .noFix: apply(.noFix, at: now(), observe)
        case .connected: apply(.providerBack, at: now(), observe)
        case .disconnected(let reason): apply(.providerLost(reason: reason), at: now(), observe)
        }
    }

    /// Shows a fix restored from disk in the status (`.restored`), before the
    /// source says anything; `deviceLocation` stays nil, since it is not current.
    public func restore(_ location: Location) {
        guard let fix = validated(location) else { return }
        apply(.restoredFix(fix), at: now()) { _ in }
    }

    /// What the validation rejected and removed so far (``Location/validated()``).
    public var validationCounts: ValidationCounts { validation.withLock { $0 } }

    /// `location` as the validation leaves it, nil when rejected; counts and logs what it
    /// found (the first time, then at the 10th, 100th, ... of a kind, so that a source that
    /// sends nothing else does not flood the log).
    private func validated(_ location: Location) -> Location? {
        let result = location.validated()
        guard result.rejection != nil || !result.dropped.isEmpty else { return result.location }
        let (before, after) = validation.withLock { counts in
            let before = (counts.rejectedFixes, counts.droppedFields)
            counts.count(result)
            return (before, (counts.rejectedFixes, counts.droppedFields))
        }
        if let rejection = result.rejection, LogThrottle.passesPowerOfTen(from: before.0, to: after.0) {
            logger.warning("ignoring an impossible fix: \(rejection.reason) (\(after.0) so far)")
        }
        if LogThrottle.passesPowerOfTen(from: before.1, to: after.1) {
            let reasons = result.dropped.map(\.reason).joined(separator: "; ")
            logger.warning("dropping impossible values from a fix: \(reasons) (\(after.1) so far)")
        }
        return result.location
    }

    private func apply(
        _ event: FreshnessEvent, at date: Date?, fix: Location? = nil, _ observe: (Transition) -> Void
    ) {
        freshness.withLock { state in
            let elapsed = elapsed()
            if let deadline = state.deadline, elapsed > deadline {
                // Passed before this event, whether or not the timer has run yet.
                let passed = date?.addingTimeInterval(-((elapsed - deadline) / .seconds(1)))
                apply(.timeoutElapsed, at: passed, elapsed: elapsed, fix: nil, to: &state, observe)
            }
            apply(event, at: date, elapsed: elapsed, fix: fix, to: &state, observe)
        }
    }

    private func apply(
        _ event: FreshnessEvent, at date: Date?, elapsed: Duration, fix: Location?, to state: inout Freshness,
        _ observe: (Transition) -> Void
    ) {
        let old = state.status
        let new = ProviderStatus.reduce(old, event)
        state.status = new
        // The status first, so that a listener told of a location change finds it current.
        if new != old {
            status ~> new
            if new.name != old.name || new.source != old.source { observe(.status(new, at: date)) }
        }
        if new.isLive {
            if let fix {
                deviceLocation ~> fix
                observe(.location(fix))
                state.showsLocation = true
                arm(&state, elapsed: elapsed)
            }
        } else {
            if state.showsLocation {
                deviceLocation ~> nil
                observe(.location(nil))
                state.showsLocation = false
            }
            state.deadline = nil
            state.timer += 1
            state.timerTask?.cancel()
            state.timerTask = nil
        }
        if let line = new.logLine(after: old) { logger.log(level: line.level, "\(line.message)") }
    }

    /// Moves the freshness deadline to `freshnessTimeout` from now, and starts the
    /// timer task unless one is running.
    private func arm(_ state: inout Freshness, elapsed: Duration) {
        state.deadline = elapsed + freshnessTimeout
        guard timer == .task, state.timerTask == nil else { return }
        state.timer += 1
        let timer = state.timer
        // Sleeps until the deadline, and again while fixes keep moving it; ends once
        // the timeout is applied, when cancelled, or when the coordinator is gone.
        state.timerTask = Task { [weak self, clock] in
            while let wait = self?.timeUntilDeadline(timer: timer) {
                guard (try? await clock.sleep(for: wait)) != nil else { return }
            }
        }
    }

    /// For timer task number `timer`: the time left until the deadline, or nil after
    /// applying `.timeoutElapsed` because it has passed, or when that task is no
    /// longer the current one.
    private func timeUntilDeadline(timer: Int) -> Duration? {
        freshness.withLock { state in
            guard state.timer == timer, let deadline = state.deadline else { return nil }
            let elapsed = elapsed()
            let remaining = deadline - elapsed
            guard remaining > .zero else {
                apply(.timeoutElapsed, at: now(), elapsed: elapsed, fix: nil, to: &state) { _ in }
                return nil
            }
            return remaining
        }
    }

    /// A function that reads the time on `clock` since now.
    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }
}
