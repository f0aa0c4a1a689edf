import ArgumentParser
import Foundation
import LocationState
import Logging

/// `locationd run`: the daemon.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon: read fixes, keep the tile log and the last fix, answer on the control socket.",
        discussion: """
            Settings come from flags, then LOCATIOND_... environment variables (LOCATIOND_DATA_DIR \
            for data-dir), then the configuration file (--config; by default /etc/locationd/locationd.conf \
            for root, else $XDG_CONFIG_HOME/locationd/locationd.conf, when it exists), then \
            built-in defaults. The file holds `key = value` lines named like the long flags \
            (source, gpsd, data-dir, socket, socket-mode, zooms, freshness-timeout, log-level, record, timezone, regions, http, \
            http-token-file, http-basemap, http-allowed-hosts, mqtt), \
            the region settings on-enter, on-leave, region-dwell, region-leave-margin, \
            region-hook-timeout, region-initial-enter, the motion settings stay-distance, stay-duration, \
            stay-gap, max-speed, and the MQTT settings mqtt-user, \
            mqtt-password-file, mqtt-ca-file, mqtt-client-id, mqtt-topic, mqtt-locationd-topic, mqtt-owntracks, \
            mqtt-discovery, \
            mqtt-min-interval, mqtt-min-distance, mqtt-stopped-interval, mqtt-keepalive, mqtt-outbox-max-messages, \
            mqtt-outbox-max-age, and uplink (repeatable), uplink-min-interval, uplink-min-distance, \
            uplink-stopped-interval.
            SIGTERM or SIGINT stops the source, flushes every store, removes the socket and exits 0. \
            SIGHUP reads the configuration again (log-level takes effect at once; a bad file is \
            logged and the running configuration kept) and the region file (a bad one is logged \
            and the regions loaded before kept).
            """)

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Where fixes come from: auto (gpsd, else the simulator), gpsd, simulated, or replay FILE.",
            valueName: "source"))
    var source: [String] = []

    @Option(help: ArgumentHelp("gpsd's address (default localhost:2947).", valueName: "host:port"))
    var gpsd: String?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @Option(help: ArgumentHelp("The control socket (default: control.sock in the data directory).", valueName: "path"))
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "The control socket's mode: 0600 (owner only, the default) or 0660 (the daemon's group too).",
            valueName: "mode"))
    var socketMode: String?

    @Option(help: ArgumentHelp("Tile zoom levels to log, comma-separated (default 14,17).", valueName: "list"))
    var zooms: String?

    @Option(
        help: ArgumentHelp(
            "Seconds without a fix before the location counts as unknown (default 5).", valueName: "seconds"))
    var freshnessTimeout: String?

    @Option(
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (default info).", valueName: "level")
    )
    var logLevel: String?

    @Flag(inversion: .prefixedNo, help: "Record the fixes as NMEA, one file a day, in tracks/ of the data directory.")
    var record: Bool?

    @Option(
        help: ArgumentHelp(
            "A GeoJSON file of regions to report entering and leaving (Point with a radius, Polygon, MultiPolygon).",
            valueName: "file"))
    var regions: String?

    @Option(
        help: ArgumentHelp(
            "The HTTP server's address, or off (default 127.0.0.1:\(HTTPConfiguration.defaultPort)).",
            valueName: "host:port"))
    var http: String?

    @Option(
        help: ArgumentHelp(
            "Publish the location over MQTT (locationd's and OwnTracks' formats): mqtt://[USER@]HOST[:PORT], mqtts://... or off.",
            valueName: "url"))
    var mqtt: String?

    @Option(
        help: ArgumentHelp(
            "Send the location to an HTTP server too (repeatable): osmand=URL (Traccar, Home Assistant's traccar webhook), owntracks=URL, overland=URL or gpslogger=URL (Home Assistant's gpslogger webhook), then options such as name=, device=, history=; secrets only from files or the environment (docs/uplinks.md).",
            valueName: "protocol=url"))
    var uplink: [String] = []

    @OptionGroup var thresholds: TimelineThresholds

    @OptionGroup var timeZone: TimeZoneOption

    @Option(help: ArgumentHelp("The configuration file to read.", valueName: "path"))
    var config: String?

    func run() async throws {
        // First of all, so that a SIGTERM while starting is acted on once running, not fatal half-way.
        let signals = ProcessSignals()
        let source = configurationSource
        let configuration: DaemonConfiguration
        do {
            configuration = try source.resolve()
        } catch {
            throw error.exit()
        }
        DaemonLogHandler.level.withLock { $0 = configuration.logLevel }
        LoggingSystem.bootstrap(DaemonLogHandler.init)
        let logger = Logger(label: "locationd")
        do {
            let daemon = try Daemon(source: source, configuration: configuration, logger: logger, signals: signals)
            try await daemon.run()
        } catch {
            logger.critical("\(error.message)")
            throw ExitCode(ExitStatus.code(for: error))
        }
    }

    /// The settings' layers: these flags over `LOCATIOND_...` variables over the file over the defaults.
    var configurationSource: DaemonConfigurationSource {
        var source = DaemonConfigurationSource()
        source.explicitFile = config
        if !self.source.isEmpty { source.sourceWords = self.source }
        let flags: [(String, String?)] = [
            ("gpsd", gpsd), ("data-dir", dataDirectory.path), ("socket", socket), ("socket-mode", socketMode),
            ("zooms", zooms),
            ("freshness-timeout", freshnessTimeout), ("log-level", logLevel), ("regions", regions),
            ("http", http), ("mqtt", mqtt), ("timezone", timeZone.name),
        ]
        source.flags =
            flags.compactMap { key, value in value.map { (key, $0) } } + uplink.map { ("uplink", $0) }
            + thresholds.settings
        source.record = record
        return source
    }
}
