import Dispatch
import Foundation
import LocationMQTT
import LocationProviders
import LocationRegions
import LocationState
import LocationStores
import LocationTimeline
import LocationUplinks
import Logging
import NIOPosix

extension DaemonContext {
    /// Opens what the daemon keeps in `configuration`'s data directory (the tile log, the
    /// last fix, the timeline, the MQTT outbox, the regions' membership) and makes the
    /// states: the one place the daemon's parts are made. The caller holds the directory's
    /// lock.
    static func open(configuration: DaemonConfiguration, logger: Logger) throws(LocationError) -> DaemonContext {
        let directory = configuration.dataDirectory
        let coordinator = LocationCoordinator(
            status: MonitoredState(key: "providerStatus", initialValue: .connecting(configuration.initialSource)),
            freshnessTimeout: .milliseconds(Int64(configuration.freshnessTimeoutSeconds * 1000)), logger: logger)
        let tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: configuration.zooms),
            sink: TileDatabaseSink(url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
            logger: logger)
        let listeners = DispatchQueue(label: "locationd.listeners")
        var context = DaemonContext(
            configuration: configuration, logger: logger, coordinator: coordinator, epochs: Epochs(), tiles: tiles,
            lastFix: try LastFixStore(directory: directory, logger: logger), listeners: listeners)
        context.regions = try configuration.regions.regionsPath.map { _ throws(LocationError) in
            try RegionMonitoring(configuration: configuration.regions, dataDirectory: directory, logger: logger)
        }
        let names = LocationNames(
            regions: { [regions = context.regions] in regions?.monitor.regions },
            places: PlaceNamesFile.loadedOnce(logger: logger))
        context.timeline = TimelineRecorder(
            configuration: configuration.motion,
            store: try TimelineStore(directory: URL(fileURLWithPath: directory), logger: logger), logger: logger,
            naming: { names.name(lat: $0, lon: $1) })
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
        if !configuration.uplinks.targets.isEmpty {
            context.uplinks = try Uplinks(
                targets: configuration.uplinks.targets, directory: URL(fileURLWithPath: directory),
                policy: configuration.uplinks.policy, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                logger: logger)
        }
        return context
    }
}
