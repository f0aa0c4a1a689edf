import Foundation
import LocationMQTT
import LocationProviders
import LocationState
import LocationStores
import LocationTimeline
import Logging
import ServiceLifecycle

/// The running daemon: the states, and one service per duty, run as a `ServiceGroup`.
///
/// The group shuts its services down in the reverse order of ``services``: the
/// source first, then the listeners (drained, then flushed), the control socket
/// last. A service whose store cannot be flushed fails the run (a non-zero exit);
/// SIGTERM and SIGINT start the shutdown, SIGHUP reloads the configuration.
final class Daemon: Sendable {
    let source: DaemonConfigurationSource
    let configuration: DaemonConfiguration
    let logger: Logger
    private let coordinator: LocationCoordinator
    /// One fix per epoch, for the listeners that record or publish.
    private let epochs: EpochService
    private let lock: DaemonLock
    /// Stops the daemon when its data directory goes.
    private let watch: DataDirectoryWatch
    private let tiles: TileLogger
    private let server: ControlServer
    /// What every service reads: the states, the stores, the counters.
    let context: DaemonContext
    /// The configuration in force, which SIGHUP replaces.
    let current: Locked<DaemonConfiguration>

    /// Makes the data directory private, takes its lock and opens the stores.
    init(source: DaemonConfigurationSource, configuration: DaemonConfiguration, logger: Logger) throws(LocationError) {
        (self.source, self.configuration, self.logger) = (source, configuration, logger)
        current = Locked(configuration)
        let directory = configuration.dataDirectory
        lock = try DaemonLock(directory: directory, logger: logger)
        watch = DataDirectoryWatch(directory: directory, logger: logger)
        coordinator = LocationCoordinator(
            status: MonitoredState(key: "providerStatus", initialValue: .connecting(configuration.initialSource)),
            freshnessTimeout: .milliseconds(Int64(configuration.freshnessTimeoutSeconds * 1000)), logger: logger)
        tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: configuration.zooms),
            sink: TileDatabaseSink(url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
            logger: logger)
        let listeners = DispatchQueue(label: "locationd.listeners")
        epochs = EpochService(deviceLocation: coordinator.deviceLocation, queue: listeners)
        var context = DaemonContext(
            configuration: configuration, logger: logger, deviceLocation: coordinator.deviceLocation,
            epochLocation: epochs.epochLocation, status: coordinator.status,
            lastFix: try LastFixStore(directory: directory, logger: logger), listeners: listeners)
        let epochLocation = epochs.epochLocation
        context.regions = try configuration.regions.regionsPath.map { _ throws(LocationError) in
            try RegionService(
                configuration: configuration.regions, deviceLocation: epochLocation, dataDirectory: directory,
                logger: logger)
        }
        context.timeline = TimelineRecorder(
            configuration: configuration.motion,
            store: try TimelineStore(directory: URL(fileURLWithPath: directory), logger: logger), logger: logger)
        context.httpToken = try configuration.http.loadToken(logger: logger)
        if context.httpToken == nil, configuration.http.enabled, configuration.socketMode & 0o060 != 0 {
            // The socket is the group's: loopback, open to every local user, must not be wider.
            context.httpToken = try HTTPToken.kept(in: directory)
        }
        if configuration.mqtt.isEnabled {
            // On the listeners' queue, so that a fix wakes one thread for all of them.
            var mqtt = configuration.mqtt
            mqtt.softwareVersion = LocationdVersion.current
            context.mqtt = try MQTTPublisher(
                configuration: mqtt, directory: URL(fileURLWithPath: directory), logger: logger,
                queue: context.listeners)
        }
        self.context = context
        server = ControlServer(
            path: configuration.resolvedSocketPath, mode: mode_t(configuration.socketMode),
            responder: ControlResponder(context: context), logger: logger)
    }

    /// The services, in start order; the group stops them in the reverse order.
    private func services(signals: ProcessSignals) -> [any Service] {
        // The listeners that record or publish follow the epochs; the views (control socket,
        // HTTP) follow deviceLocation, which has each report at once.
        let (context, tiles, epochLocation, queue) = (context, tiles, context.epochLocation, context.listeners)
        var services: [any Service] = [ControlService(server: server), watch]
        services.append(ListenerService(tiles, of: epochLocation, on: queue) { try await tiles.close() })
        if configuration.record {
            let recorder = TrackRecorder(directory: configuration.tracksDirectory, logger: logger)
            services.append(ListenerService(recorder, of: epochLocation, on: queue) { try recorder.close() })
        }
        services.append(ListenerService.lastFix(context: context))
        if let timeline = context.timeline {
            services.append(ListenerService.timeline(timeline, of: epochLocation, on: queue))
        }
        if let regions = context.regions { services.append(regions) }
        if let mqtt = context.mqtt {
            services.append(
                MQTTService(
                    publisher: mqtt, deviceLocation: epochLocation, status: context.status, regions: context.regions,
                    timeline: context.timeline.map(MQTTService.Timeline.init(recorder:))))
        }
        // After the listeners: stopped before them, it hands on the epoch it holds.
        services.append(epochs)
        services.append(
            LocationSourceService(
                coordinator: coordinator, provider: configuration.makeProvider(logger: logger), logger: logger))
        if configuration.http.enabled { services.append(HTTPService(context: context)) }
        services.append(SignalService(signals: signals, reload: { [self] in reload() }, logger: logger))
        return services
    }

    /// Runs until SIGTERM or SIGINT, then stops in order; throws when a store could not be flushed.
    func run(signals: ProcessSignals) async throws(LocationError) {
        if let restored = context.lastFix.lastFix { coordinator.restore(restored) }
        try await server.startListening()
        logger.info(
            "locationd running: source \(configuration.source), data in \(configuration.dataDirectory), control socket \(server.path)"
        )
        let group = ServiceGroup(configuration: .daemon(services(signals: signals), logger: logger))
        SystemdNotifier.notify("READY=1")
        let startupPages = StartupPages.releaseLater()
        defer { startupPages.cancel() }
        do {
            try await group.run()
        } catch let error as LocationError {
            throw error
        } catch {
            throw .internalError("the daemon's services ended unexpectedly: \(error)")
        }
        logger.info("stopped")
    }
}
