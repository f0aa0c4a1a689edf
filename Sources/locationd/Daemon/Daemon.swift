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
    let configuration: DaemonConfiguration
    let logger: Logger
    private let lock: DaemonLock
    /// What every service is made from: the states, the stores, the counters.
    let context: DaemonContext
    /// The control socket, listening before the group starts.
    private let control: ControlService
    /// Stops the daemon when its data directory goes.
    private let watch: DataDirectoryWatch

    /// Makes the data directory private, takes its lock and opens the stores; `signals`
    /// (taken first of all) stop the daemon and reload its configuration.
    init(
        source: DaemonConfigurationSource, configuration: DaemonConfiguration, logger: Logger,
        signals: ProcessSignals? = nil
    ) throws(LocationError) {
        (self.configuration, self.logger) = (configuration, logger)
        lock = try DaemonLock(directory: configuration.dataDirectory, logger: logger)
        var context = try DaemonContext.open(configuration: configuration, logger: logger)
        context.signals = signals
        context.configurationReload = ConfigurationReload(
            source: source, configuration: configuration, regions: context.regions, logger: logger)
        self.context = context
        watch = DataDirectoryWatch(context: context)
        control = ControlService(context: context)
    }

    /// What SIGHUP does (see ``ConfigurationReload``).
    func reload() { context.configurationReload?.reload() }

    /// The services, in start order; the group stops them in the reverse order.
    private var services: [any Service] {
        // The listeners that record or publish follow the epochs; the views (control socket,
        // HTTP) follow deviceLocation, which has each report at once.
        var services: [any Service] = [control, watch]
        services += ListenerService.history(context: context)
        services.append(ListenerService.fixCounter(context: context))
        if let regions = RegionService(context: context) { services.append(regions) }
        if let mqtt = MQTTService(context: context) { services.append(mqtt) }
        if let uplinks = UplinkService(context: context) { services.append(uplinks) }
        // After the listeners: stopped before them, it hands on the epoch it holds.
        services.append(EpochService(context: context))
        services.append(LocationSourceService(context: context))
        if configuration.http.enabled { services.append(HTTPService(context: context)) }
        if let signals = SignalService(context: context) { services.append(signals) }
        return services
    }

    /// Runs until SIGTERM or SIGINT, then stops in order; throws when a store could not be flushed.
    func run() async throws(LocationError) {
        if let restored = context.lastFix.lastFix { context.coordinator.restore(restored) }
        try await control.startListening()
        logger.info(
            "locationd running: source \(configuration.source), data in \(configuration.dataDirectory), control socket \(control.server.path)"
        )
        let group = ServiceGroup(configuration: .daemon(services, logger: logger))
        SystemdNotifier.notify("READY=1")
        let startupPages = StartupPages.releaseLater()
        let heapTrim = HeapTrim.everyInterval()
        defer {
            startupPages.cancel()
            heapTrim.cancel()
        }
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
