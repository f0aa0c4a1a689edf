import Dispatch
import LocationState
import ServiceLifecycle

/// Runs the daemon's ``RegionMonitoring`` as a `Service`: keeps "regionMembership"
/// derived from the fixes it follows (the daemon's one fix per epoch), logs every
/// transition and runs its hooks, and stores the membership on graceful shutdown.
public struct RegionService: Service {
    private let regions: RegionMonitoring
    private let deviceLocation: MonitoredState<Location?>
    /// Where the membership follows each fix: the daemon's listeners' queue, so that a fix
    /// wakes no thread of its own for it.
    private let membershipQueue: DispatchQueue
    /// Where transitions are reported (their hooks started): rare, and kept off the fixes' way.
    private let queue = DispatchQueue(label: "locationd.regions")

    /// - Parameters:
    ///   - regions: the monitoring to run.
    ///   - deviceLocation: the fixes the membership follows.
    ///   - membershipQueue: the serial queue the membership follows them on.
    public init(regions: RegionMonitoring, deviceLocation: MonitoredState<Location?>, membershipQueue: DispatchQueue) {
        self.regions = regions
        self.deviceLocation = deviceLocation
        self.membershipQueue = membershipQueue
    }

    /// Follows `deviceLocation` until graceful shutdown, then stores the membership.
    public func run() async throws {
        let events = regions.monitor.events.observe(on: queue, policy: .all) { [regions] change in
            regions.report(change.new)
        }
        let membership = regions.monitor.attach(to: deviceLocation, on: membershipQueue)
        try? await gracefulShutdown()
        membership.cancel()
        events.cancel()
        regions.storeMembership()
    }
}

extension RegionService {
    /// The region service when a region file is configured: the context's monitoring,
    /// following the epochs on the listeners' queue.
    init?(context: DaemonContext) {
        guard let regions = context.regions else { return nil }
        self.init(regions: regions, deviceLocation: context.epochLocation, membershipQueue: context.listeners)
    }
}
