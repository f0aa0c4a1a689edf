import Dispatch
import Foundation
import LocationState
import LocationTimeline
import LocationUplinks
import ServiceLifecycle

/// The uplinks as a service: each epoch's fix, with the motion at that moment, and each
/// change of motion go to ``Uplinks`` in the order they came, while its senders run. On
/// graceful shutdown a request under way is given up; its fixes stay in the outbox and go
/// first at the next start.
struct UplinkService: Service {
    private let uplinks: Uplinks
    private let epochLocation: MonitoredState<Location?>
    private let motion: MonitoredState<Motion>?
    /// The daemon's listeners' queue: handing a fix on wakes no thread of its own.
    private let queue: DispatchQueue

    /// What the service hands on, in order.
    private enum Event: Sendable {
        case fix(Location, Motion?)
        case motion(Motion)
    }

    /// The uplink service when any target is configured.
    init?(context: DaemonContext) {
        guard let uplinks = context.uplinks else { return nil }
        self.uplinks = uplinks
        epochLocation = context.epochLocation
        motion = context.timeline?.motion
        queue = context.listeners
    }

    func run() async throws {
        // Fixes are small and few (one an epoch): the stream holds what a slow outbox has
        // not taken yet, up to ten minutes at 10 Hz, the newest kept.
        let (events, feed) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(6000))
        let (queue, motion) = (queue, motion)
        let fixes = epochLocation.observe(on: queue, policy: .all) { change in
            if let fix = change.new { feed.yield(.fix(fix, motion?.value)) }
        }
        let motions = motion?.observe(on: queue, policy: .all) { feed.yield(.motion($0.new)) }
        let uplinks = uplinks
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await uplinks.run() }
            group.addTask {
                try? await gracefulShutdown()
                // On the queue, after what the observers have to hand on: the epoch the
                // epoch service flushed as it stopped (before this service) reaches the outbox.
                queue.async { feed.finish() }
            }
            for await event in events {
                switch event {
                case .fix(let fix, let motion): await uplinks.offer(fix, motion: motion)
                case .motion(let motion): await uplinks.motionChanged(motion)
                }
            }
            group.cancelAll()
        }
        fixes.cancel()
        motions?.cancel()
    }
}
