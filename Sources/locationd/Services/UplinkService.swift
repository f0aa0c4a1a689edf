import Dispatch
import Foundation
import LocationState
import LocationTimeline
import LocationUplinks
import ServiceLifecycle

/// The uplinks as a service: each epoch's fix, with the motion at that moment, and each
/// change of motion are put to the publishing policy on the listeners' queue as they come
/// (``Uplinks/admit(_:motion:at:)``); what it lets go, a fix every few seconds, goes to
/// ``Uplinks`` in that order, while its senders run. On graceful shutdown a request under
/// way is given up; its fixes stay in the outbox and go first at the next start.
struct UplinkService: Service {
    private let uplinks: Uplinks
    private let epochLocation: MonitoredState<Location?>
    private let motion: MonitoredState<Motion>?
    /// The daemon's listeners' queue: handing a fix on wakes no thread of its own.
    private let queue: DispatchQueue

    /// The uplink service when any target is configured.
    init?(context: DaemonContext) {
        guard let uplinks = context.uplinks else { return nil }
        self.uplinks = uplinks
        epochLocation = context.epochLocation
        motion = context.timeline?.motion
        queue = context.listeners
    }

    func run() async throws {
        // Fixes are small and few: the stream holds what a slow outbox has not taken yet,
        // the newest kept.
        let (admitted, feed) = AsyncStream.makeStream(
            of: Uplinks.Admitted.self, bufferingPolicy: .bufferingNewest(6000))
        let (queue, motion, uplinks) = (queue, motion, uplinks)
        let fixes = epochLocation.observe(on: queue, policy: .all) { change in
            if let fix = change.new, let next = uplinks.admit(fix, motion: motion?.value) { feed.yield(next) }
        }
        let motions = motion?.observe(on: queue, policy: .all) { change in
            if let next = uplinks.admitMotion(change.new) { feed.yield(next) }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await uplinks.run() }
            group.addTask {
                try? await gracefulShutdown()
                // On the queue, after what the observers have to hand on: the epoch the
                // epoch service flushed as it stopped (before this service) reaches the outbox.
                queue.async { feed.finish() }
            }
            for await next in admitted { await uplinks.append(next) }
            group.cancelAll()
        }
        fixes.cancel()
        motions?.cancel()
    }
}
