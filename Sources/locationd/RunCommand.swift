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
            Settings come from flags, then the configuration file (--config; by default \
            /etc/locationd.conf for root, else $XDG_CONFIG_HOME/locationd/locationd.conf, when it \
            exists), then built-in defaults. The file holds `key = value` lines named like the \
            long flags (source, gpsd, data-dir, socket, zooms, freshness-timeout, log-level, record).
            SIGTERM or SIGINT stops the source, flushes every store, removes the socket and exits 0.
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

    @Option(help: ArgumentHelp("Tile zoom levels to log, comma-separated (default 14,17).", valueName: "list"))
    var zooms: String?

    @Option(
        help: ArgumentHelp(
            "Seconds without a fix before the location counts as unknown (default 5).", valueName: "seconds"))
    var freshnessTimeout: String?

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (default info).", valueName: "level"))
    var logLevel: String?

    @Flag(inversion: .prefixedNo, help: "Record the fixes as NMEA, one file a day, in tracks/ of the data directory.")
    var record: Bool?

    @Option(help: ArgumentHelp("The configuration file to read.", valueName: "path"))
    var config: String?

    func run() async throws {
        let configuration: DaemonConfiguration
        do {
            configuration = try resolveConfiguration()
        } catch {
            throw error.exit()
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = configuration.logLevel
            return handler
        }
        let logger = Logger(label: "locationd")
        do {
            let daemon = try Daemon(configuration: configuration, logger: logger)
            try await daemon.run()
        } catch {
            logger.critical("\(error.message)")
            throw ExitCode(ExitStatus.code(for: error))
        }
    }

    /// Built-in defaults, then the configuration file, then the flags.
    func resolveConfiguration() throws(LocationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration(dataDirectory: DataDirectory.defaultURL().path)
        let environment = ProcessInfo.processInfo.environment
        let defaultFile =
            geteuid() == 0
            ? "/etc/locationd.conf"
            : (environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? (NSHomeDirectory() + "/.config")) + "/locationd/locationd.conf"
        let file = config ?? defaultFile
        if FileManager.default.fileExists(atPath: file) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .fileUnreadable(path: file, reason: "permission denied")
            }
            try configuration.apply(file: String(decoding: data, as: UTF8.self), path: file)
        } else if config != nil {
            throw .fileNotFound(path: file)
        }
        if !source.isEmpty { configuration.source = try DaemonConfiguration.parseSource(source, origin: "--source") }
        if let gpsd { try configuration.apply(key: "gpsd", value: gpsd, origin: "--gpsd") }
        if let path = dataDirectory.path { configuration.dataDirectory = path }
        if let socket { configuration.socketPath = socket }
        if let zooms { try configuration.apply(key: "zooms", value: zooms, origin: "--zooms") }
        if let freshnessTimeout {
            try configuration.apply(key: "freshness-timeout", value: freshnessTimeout, origin: "--freshness-timeout")
        }
        if let logLevel { try configuration.apply(key: "log-level", value: logLevel, origin: "--log-level") }
        if let record { configuration.record = record }
        return configuration
    }
}
