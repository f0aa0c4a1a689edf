import LocationState

extension Daemon {
    /// SIGHUP: reads the configuration again; takes what can change while running,
    /// names what needs a restart, and keeps everything as it is when the new one is bad.
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
        context.regions?.reload()
    }
}
