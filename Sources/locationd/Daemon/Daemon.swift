import Foundation
import LocationState
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
    private let lock: DaemonLock
    private let tiles: TileLogger
    private let lastFix: LastFixStore
    private let server: ControlServer
    let regions: RegionService?
    private let mqtt: MQTTPublisher?
    private let counter = FixCounter()
    /// Where the listeners run: every listener takes microseconds a fix (the stores
    /// write from queues of their own, the track at most once a second), so on one
    /// serial queue a fix costs one thread wake-up instead of one per listener, a large
    /// share of CPU at 10 Hz. The MQTT publisher runs on it too.
    private let listeners = DispatchQueue(label: "locationd.listeners")
    private let startedAt = Date()
    /// The HTTP server's bearer token, read at start (`nil`: none configured).
    private let httpToken: [UInt8]?
    /// The configuration in force, which SIGHUP replaces.
    let current: Locked<DaemonConfiguration>

    /// Makes the data directory private, takes its lock and opens the stores.
    init(source: DaemonConfigurationSource, configuration: DaemonConfiguration, logger: Logger) throws(LocationError) {
        (self.source, self.configuration, self.logger) = (source, configuration, logger)
        current = Locked(configuration)
        let directory = configuration.dataDirectory
        lock = try DaemonLock(directory: directory, logger: logger)
        coordinator = LocationCoordinator(
            status: MonitoredState(key: "providerStatus", initialValue: .connecting(configuration.initialSource)),
            freshnessTimeout: .milliseconds(Int64(configuration.freshnessTimeoutSeconds * 1000)), logger: logger)
        tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: configuration.zooms),
            sink: TileDatabaseSink(url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
            logger: logger)
        lastFix = try LastFixStore(directory: directory, logger: logger)
        let deviceLocation = coordinator.deviceLocation
        regions = try configuration.regions.regionsPath.map { _ throws(LocationError) in
            try RegionService(
                configuration: configuration.regions, deviceLocation: deviceLocation, dataDirectory: directory,
                logger: logger)
        }
        httpToken = try configuration.http.loadToken(logger: logger)
        mqtt =
            configuration.mqtt.isEnabled
            ? try MQTTPublisher(
                configuration: configuration.mqtt, directory: URL(fileURLWithPath: directory), logger: logger,
                queue: listeners)
            : nil
        server = ControlServer(
            path: configuration.resolvedSocketPath,
            responder: .daemon(
                deviceLocation: coordinator.deviceLocation, status: coordinator.status, counter: counter,
                lastFix: lastFix, startedAt: startedAt, regions: regions, mqtt: mqtt),
            logger: logger)
    }

    /// The services, in start order; the group stops them in the reverse order.
    private func services(signals: ProcessSignals) -> [any Service] {
        let (deviceLocation, counter, lastFix, tiles, queue) = (
            coordinator.deviceLocation, counter, lastFix, tiles, listeners
        )
        var services: [any Service] = [ControlService(server: server)]
        services.append(ListenerService(tiles, of: deviceLocation, on: queue) { try await tiles.close() })
        if configuration.record {
            let recorder = TrackRecorder(directory: configuration.tracksDirectory, logger: logger)
            services.append(ListenerService(recorder, of: deviceLocation, on: queue) { try recorder.close() })
        }
        services.append(ListenerService.lastFix(lastFix, counter: counter, of: deviceLocation, on: queue))
        if let regions { services.append(regions) }
        if let mqtt {
            services.append(
                MQTTService(
                    publisher: mqtt, deviceLocation: deviceLocation, status: coordinator.status,
                    regions: regions))
        }
        services.append(
            LocationSourceService(
                coordinator: coordinator, provider: configuration.makeProvider(logger: logger), logger: logger))
        if configuration.http.enabled {
            services.append(
                HTTPService.daemon(
                    configuration: configuration, deviceLocation: deviceLocation, status: coordinator.status,
                    counter: counter, lastFix: lastFix, startedAt: startedAt, regions: regions, mqtt: mqtt,
                    token: httpToken, logger: logger))
        }
        services.append(SignalService(signals: signals, reload: { [self] in reload() }, logger: logger))
        return services
    }

    /// Runs until SIGTERM or SIGINT, then stops in order; throws when a store could not be flushed.
    func run(signals: ProcessSignals) async throws(LocationError) {
        if let restored = lastFix.lastFix { coordinator.restore(restored) }
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
