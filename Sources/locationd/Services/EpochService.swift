import Dispatch
import LocationProviders
import LocationState
import ServiceLifecycle

/// "epochLocation": one fix per receiver epoch, derived from `deviceLocation` by
/// ``EpochMerger``, for the listeners that record or publish (tiles, track, last fix,
/// regions, motion, MQTT).
///
/// `deviceLocation` keeps every report as it comes, so `locationd last`, the control
/// socket and the HTTP views show an epoch's first report at once; "epochLocation" gets
/// the epoch, merged, when its last expected report arrives (docs/gpsd-epochs.md). On graceful
/// shutdown (after the source has stopped) the epoch still held is handed on, before the
/// listeners are drained.
///
/// - Important: the merger runs on `queue`, the listeners' serial queue, and the epoch
///   fix is written from there.
public final class EpochService: Service, Sendable {
    /// One fix per epoch, or nil when there is no current fix.
    public let epochLocation = MonitoredState<Location?>(key: "epochLocation", initialValue: nil)
    private let deviceLocation: MonitoredState<Location?>
    private let queue: DispatchQueue
    private let merger = Locked(EpochMerger())

    public init(deviceLocation: MonitoredState<Location?>, queue: DispatchQueue) {
        self.deviceLocation = deviceLocation
        self.queue = queue
    }

    public func run() async throws {
        let observation = deviceLocation.observe(on: queue, policy: .all) { [self] change in
            for value in merger.withLock({ $0.receive(change.new) }) { epochLocation ~> value }
        }
        try? await gracefulShutdown()
        observation.cancel()
        await withCheckedContinuation { done in
            queue.async { [self] in
                if let held = merger.withLock({ $0.flush() }) { epochLocation ~> held }
                done.resume()
            }
        }
    }
}
