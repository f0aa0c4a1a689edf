import Foundation
import LocationMQTT
import LocationProviders
import LocationState
import LocationTimeline
import ServiceLifecycle

/// The MQTT publisher as a service: attached to `deviceLocation` and the status while
/// it runs; on graceful shutdown it publishes `stopped` (and the motion `unknown`), sends what it can within
/// ``shutdownGrace``, disconnects cleanly (so the broker does not send the last will)
/// and keeps the rest in the outbox for the next start.
public struct MQTTService: Service {
    /// How long a graceful shutdown waits for the broker to acknowledge the outbox.
    public static let shutdownGrace = Duration.seconds(2)

    private let publisher: MQTTPublisher
    private let deviceLocation: MonitoredState<Location?>
    private let status: MonitoredState<ProviderStatus>
    private let regions: RegionMonitoring?
    private let timeline: Timeline?

    /// What the daemon knows of motion, stays and trips, for MQTT.
    public struct Timeline: Sendable {
        public var motion: MonitoredState<Motion>
        public var events: MonitoredState<TimelineEvent?>
        /// The distance of the day of the given time.
        public var distance: @Sendable (Date) -> DayDistance?

        public init(
            motion: MonitoredState<Motion>, events: MonitoredState<TimelineEvent?>,
            distance: @escaping @Sendable (Date) -> DayDistance?
        ) {
            self.motion = motion
            self.events = events
            self.distance = distance
        }

        /// The recorder's motion and events; a day's distance is that of the trips, closed
        /// and open, that overlap its day in `days`' zone, which ends at local midnight.
        public init(recorder: TimelineRecorder, days: LocalDays) {
            self.init(motion: recorder.motion, events: recorder.events) { date in
                let interval = days.interval(containing: date)
                guard let entries = try? recorder.entries(from: interval.lowerBound, to: interval.upperBound) else {
                    return nil
                }
                let metres = entries.reduce(0.0) { total, entry in
                    if case .trip(let trip) = entry { total + trip.distance } else { total }
                }
                return DayDistance(day: days.day(of: date), metres: metres, end: interval.upperBound)
            }
        }
    }

    /// - Parameters:
    ///   - publisher: the client that sends, with its outbox.
    ///   - deviceLocation: the fixes to publish (the daemon's one fix per epoch).
    ///   - status: the source's state; each change of its name goes out as a status message.
    ///   - regions: with region monitoring, each enter and leave goes out as a REGION line
    ///     and, with OwnTracks messages, as an OwnTracks `transition`, and the regions as
    ///     `waypoints` (at start and after each reload).
    ///   - timeline: with motion tracking, fixes follow the motion (a stop, then a
    ///     heartbeat), the motion and each closed stay and trip go out (``MQTTTopics/motion``,
    ///     ``MQTTTopics/timeline``) with today's distance (``MQTTTopics/distance``), and
    ///     discovery adds Home Assistant's `moving` binary sensor and the distance sensor.
    public init(
        publisher: MQTTPublisher, deviceLocation: MonitoredState<Location?>, status: MonitoredState<ProviderStatus>,
        regions: RegionMonitoring? = nil, timeline: Timeline? = nil
    ) {
        self.publisher = publisher
        self.deviceLocation = deviceLocation
        self.status = status
        self.regions = regions
        self.timeline = timeline
    }

    public func run() async throws {
        let publisher = publisher
        try publisher.start()
        if publisher.configuration.discovery {
            publisher.queue.async { [motion = timeline != nil] in publisher.publishDiscovery(motion: motion) }
        }
        let timelineObservations = timeline.map { observe($0, publisher) } ?? []
        // Only a new name is published: `.live`'s date moves on every fix, and those
        // changes need not wake the publisher's queue.
        let statusObservation = status.observe(
            on: publisher.queue, policy: .all, sendingCurrentValue: true, filter: { $0.old.name != $0.new.name }
        ) {
            publisher.publish(status: $0.new)
        }
        let distance = timeline?.distance
        let fixObservation = deviceLocation.observe(on: publisher.queue, policy: .all, sendingCurrentValue: true) {
            publisher.publish(fix: $0.new)
            // The first fix of another day: the distance starts again.
            if let distance, let time = $0.new?.time, let end = publisher.distanceDayEnd, time >= end,
                let today = distance(time)
            {
                publisher.publish(distance: today)
            }
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
        for observation in timelineObservations { observation.cancel() }
        waypoints?.cancel()
        fixObservation.cancel()
        statusObservation.cancel()
        await withCheckedContinuation { done in
            publisher.queue.async {
                publisher.publishStop()
                done.resume()
            }
        }
        await publisher.drain(grace: Self.shutdownGrace)
        publisher.stop()
    }

    /// Publishes the motion and the closed stays and trips, and today's distance at start
    /// and after each trip, as they come; returns the observations.
    private func observe(_ timeline: Timeline, _ publisher: MQTTPublisher) -> [StateObservation] {
        let distance = timeline.distance
        publisher.queue.async {
            if let today = distance(Date()) { publisher.publish(distance: today) }
        }
        let motion = timeline.motion.observe(on: publisher.queue, policy: .all, sendingCurrentValue: true) {
            publisher.publish(motion: $0.new)
        }
        let events = timeline.events.observe(on: publisher.queue, policy: .all) { change in
            guard let event = change.new else { return }
            publisher.publish(timeline: event)
            if case .tripClosed(let trip) = event, let today = distance(trip.end) { publisher.publish(distance: today) }
        }
        return [motion, events]
    }
}

extension MQTTService {
    /// The MQTT service when MQTT is on: the publisher follows the epochs, the status, the
    /// regions and the timeline.
    init?(context: DaemonContext) {
        guard let publisher = context.mqtt else { return nil }
        self.init(
            publisher: publisher, deviceLocation: context.epochLocation, status: context.status,
            regions: context.regions,
            timeline: context.timeline.map { MQTTService.Timeline(recorder: $0, days: context.configuration.days) })
    }
}
