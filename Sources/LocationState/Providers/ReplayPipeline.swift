import Dispatch
import Foundation
import LocationState
import Logging

/// The path replayed events take: the daemon's ``LocationCoordinator``, on the track's own
/// clock, then one listener that receives, in order, every status change and every change
/// of the location the coordinator made (`locationd replay` prints them and, with
/// `--data-dir`, hands the fixes to the daemon's stores).
///
/// The coordinator runs with ``LocationCoordinator/FreshnessTimer/nextEvent`` on a
/// ``TrackClock`` that each event moves to its time: a gap in the track longer than the
/// freshness timeout shows as a stale period (the status `stale`, the location nil) before
/// the next fix, at `--speed max` as at real speed, and never depends on how fast the
/// machine is. The listener receives a status when its state changes (`stale`, `nofix`,
/// `live` again), not for each newer fix of a live status.
///
/// Replay at `--speed max` produces events faster than any printer consumes them, so the
/// pipeline lets at most ``window`` events be in flight: ``send(_:)`` blocks while the
/// listener is that far behind, until it is back to half of that. Memory stays bounded
/// whatever the file's size.
///
/// Three threads share the work: the replay loop decodes and calls ``send(_:)``, a serial
/// queue runs the coordinator one event at a time, in order, and the listener's queue
/// consumes what it did. With a `batchSize` above 1 (for `--speed max`), events go to the
/// coordinator's queue in batches, and its changes to the listener's, so that neither queue
/// is woken for every fix.
public final class ReplayPipeline: Sendable {
    /// Events allowed between ``send(_:)`` and the end of the delivery of what they changed.
    public static let window = 8192

    /// The daemon's coordinator: `deviceLocation` and `status` as the daemon would have them.
    public let coordinator: LocationCoordinator
    /// The track's time, moved by each event that has one.
    public let clock: TrackClock
    /// Events sent to the coordinator's queue together; 1 sends each at once.
    public let batchSize: Int
    private let inFlight = ReplayFlowControl(limit: ReplayPipeline.window)
    private let stateQueue = DispatchQueue(label: "locationd.replay.state")
    private let listenerQueue = DispatchQueue(label: "locationd.replay.output")
    private let listener: @Sendable (LocationCoordinator.Transition) -> Void
    private let batches = Locked(Batches())

    /// Batches on their way from ``send(_:)`` to the coordinator's queue, and of changes
    /// from there to the listener's.
    ///
    /// A batch of 1024 fixes is about 200 KB: allocated anew for each, it came from
    /// fresh pages, page faults on every thread. Emptied batches keep their capacity and
    /// are filled again.
    private struct Batches {
        /// The events sent since the last batch went to the coordinator's queue (only
        /// ``send(_:)`` and ``drain()`` add to it).
        var filling: [ProviderEvent] = []
        /// Batches handed to the coordinator's queue and not yet taken by it, oldest first.
        var sent: [[ProviderEvent]] = []
        /// Emptied event batches, to be filled again.
        var spare: [[ProviderEvent]] = []
        /// Batches of changes handed to the listener's queue and not yet taken by it, oldest first.
        var applied: [[LocationCoordinator.Transition]] = []
        /// Emptied batches of changes, to be filled again.
        var spareChanges: [[LocationCoordinator.Transition]] = []

        /// Moves `filling` to `sent`, and a spare batch, if any, to `filling`; false when
        /// `filling` is empty.
        mutating func send() -> Bool {
            guard !filling.isEmpty else { return false }
            sent.append(filling)
            filling = spare.popLast() ?? []
            return true
        }
    }

    /// A pipeline whose `listener` receives each change, in order, on its own serial queue.
    ///
    /// - Parameters:
    ///   - batchSize: 1 when fixes must reach the listener as soon as they are sent
    ///     (paced replay); at most a quarter of ``window``.
    ///   - freshnessTimeout: how long a fix stays current without a newer one, in track time.
    ///   - logger: where the coordinator logs the transitions (none by default: the
    ///     listener receives them).
    ///   - listener: takes each change: a status whose state changed (`.status`, with no
    ///     time before the track's first: a replay does not stamp the track with the time
    ///     it runs), a fix or nil when the location became unknown (`.location`).
    public init(
        batchSize: Int = 1, freshnessTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "locationd.replay", factory: { _ in SwiftLogNoOpLogHandler() }),
        listener: @escaping @Sendable (LocationCoordinator.Transition) -> Void
    ) {
        precondition(batchSize >= 1 && batchSize <= ReplayPipeline.window / 4, "batch size out of range")
        self.batchSize = batchSize
        let clock = TrackClock()
        self.clock = clock
        coordinator = LocationCoordinator(
            status: MonitoredState(key: "providerStatus", initialValue: .connecting(.replay)),
            freshnessTimeout: freshnessTimeout, clock: clock, timer: .nextEvent,
            now: { clock.hasTime ? clock.date : nil }, logger: logger)
        self.listener = listener
    }

    /// Hands one provider event to the coordinator.
    ///
    /// - Important: blocks while ``window`` events are still being delivered; call it
    ///   from the replay loop only (one thread at a time), never from the listener's queue.
    public func send(_ event: ProviderEvent) {
        inFlight.acquire()
        let batchSize = self.batchSize
        let full = batches.withLock { batches -> Bool in
            if batches.filling.capacity < batchSize { batches.filling.reserveCapacity(batchSize) }
            batches.filling.append(event)
            return batches.filling.count >= batchSize && batches.send()
        }
        if full { applySentBatch() }
    }

    /// Waits until the listener has received every change of the events sent.
    public func drain() {
        if batches.withLock({ $0.send() }) { applySentBatch() }
        inFlight.waitUntilIdle()
    }

    /// Has the coordinator's queue apply the oldest sent batch, in order, and hand what
    /// changed to the listener's queue; keeps the emptied batches for reuse.
    private func applySentBatch() {
        stateQueue.async {
            // One job per sent batch, in order on a serial queue: the oldest is this job's.
            var (events, changes) = self.batches.withLock { ($0.sent.removeFirst(), $0.spareChanges.popLast() ?? []) }
            self.apply(events, into: &changes)
            let count = events.count
            events.removeAll(keepingCapacity: true)
            // Through the lock rather than captured, so that each batch has one owner and
            // keeps its storage when emptied.
            self.batches.withLock {
                $0.spare.append(events)
                $0.applied.append(changes)
            }
            self.listenerQueue.async {
                // One job per applied batch, in order on a serial queue: the oldest is this job's.
                var changes = self.batches.withLock { $0.applied.removeFirst() }
                for index in changes.indices { self.listener(changes[index]) }
                changes.removeAll(keepingCapacity: true)
                self.batches.withLock { $0.spareChanges.append(changes) }
                self.inFlight.release(count)
            }
        }
    }

    /// Moves the track clock to each event's time and has the coordinator apply it; keeps
    /// what it changed.
    private func apply(_ events: [ProviderEvent], into changes: inout [LocationCoordinator.Transition]) {
        for index in events.indices {
            switch events[index] {
            // A time the validation will reject does not move the track's clock either.
            case .fix(let location):
                if let time = location.time, Location.accepts(time: time) { clock.advance(to: time) }
            case .noFix(let time): if let time, Location.accepts(time: time) { clock.advance(to: time) }
            case .connected, .disconnected: break
            }
            coordinator.receive(events[index]) { changes.append($0) }
        }
    }
}
