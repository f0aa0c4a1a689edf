import Foundation
import ServiceLifecycle

/// The MQTT publisher as a service: attached to `deviceLocation` and the status while
/// it runs; on graceful shutdown it publishes `stopped`, sends what it can within
/// ``shutdownGrace``, disconnects cleanly (so the broker does not send the last will)
/// and keeps the rest in the outbox for the next start.
public struct MQTTService: Service {
    /// How long a graceful shutdown waits for the broker to acknowledge the outbox.
    public static let shutdownGrace = Duration.seconds(2)

    private let publisher: MQTTPublisher
    private let deviceLocation: MonitoredState<Location?>
    private let status: MonitoredState<ProviderStatus>
    private let regions: RegionService?

    /// - Parameter regions: with region monitoring, each enter and leave goes out as an
    ///   OwnTracks `transition` on `TOPIC/event`, and the regions as `waypoints` (at
    ///   start and after each reload).
    public init(
        publisher: MQTTPublisher, deviceLocation: MonitoredState<Location?>, status: MonitoredState<ProviderStatus>,
        regions: RegionService? = nil
    ) {
        self.publisher = publisher
        self.deviceLocation = deviceLocation
        self.status = status
        self.regions = regions
    }

    public func run() async throws {
        let publisher = publisher
        try publisher.start()
        if publisher.configuration.discovery { publisher.queue.async { publisher.publishDiscovery() } }
        // Only a new name is published: `.live`'s date moves on every fix, and those
        // changes need not wake the publisher's queue.
        let statusObservation = status.observe(
            on: publisher.queue, policy: .all, sendingCurrentValue: true, filter: { $0.old.name != $0.new.name }
        ) {
            publisher.publish(status: $0.new)
        }
        let fixObservation = deviceLocation.observe(on: publisher.queue, policy: .all, sendingCurrentValue: true) {
            publisher.publish(fix: $0.new)
        }
        let waypoints = regions?.reloads.observe(on: publisher.queue, policy: .latest, sendingCurrentValue: true) {
            [monitor = regions?.monitor] _ in
            if let monitor { publisher.publish(waypoints: monitor.regions) }
        }
        let transitions = regions.map(\.monitor).map { monitor in
            monitor.events.observe(on: publisher.queue, policy: .all) { change in
                for event in change.new {
                    let region = monitor.regions[event.region]
                    let circular = if case .circle = region?.geometry { true } else { false }
                    publisher.publish(transition: event, circular: circular)
                }
            }
        }
        try? await gracefulShutdown()
        transitions?.cancel()
        waypoints?.cancel()
        fixObservation.cancel()
        statusObservation.cancel()
        await withCheckedContinuation { done in
            publisher.queue.async {
                publisher.publish(state: "stopped", source: nil, lastFix: nil)
                done.resume()
            }
        }
        await publisher.drain(grace: Self.shutdownGrace)
        publisher.stop()
    }
}
