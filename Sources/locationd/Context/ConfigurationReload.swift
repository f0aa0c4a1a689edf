import LocationState
import Logging

/// What SIGHUP does: reads the configuration again; takes what can change while running
/// (the log level, the region file), names what needs a restart, and keeps everything as
/// it is when the new one is bad.
final class ConfigurationReload: Sendable {
    private let source: DaemonConfigurationSource
    /// The configuration in force, which a reload replaces.
    private let current: Locked<DaemonConfiguration>
    private let logger: Logger
    private let regions: RegionMonitoring?

    init(
        source: DaemonConfigurationSource, configuration: DaemonConfiguration, regions: RegionMonitoring?,
        logger: Logger
    ) {
        (self.source, self.regions, self.logger) = (source, regions, logger)
        current = Locked(configuration)
    }

    func reload() {
        do {
            let new = try source.resolve()
            let changed = current.withLock { old in
                defer { old = new }
                return new.keysDiffering(from: old)
            }
            DaemonLogHandler.level.withLock { $0 = new.logLevel }
            let later = changed.filter { !DaemonConfiguration.reloadableKeys.contains($0) }
            logger.notice(
                "SIGHUP: configuration read again\(later.isEmpty ? "" : "; \(later.joined(separator: ", ")) take effect at restart")"
            )
        } catch {
            logger.error("SIGHUP: keeping the configuration in force: \(error.message)")
        }
        regions?.reload()
    }
}
