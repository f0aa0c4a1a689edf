import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's answer to signals: SIGTERM or SIGINT starts the group's graceful
/// shutdown (this service returns, and the group is configured to shut down when it
/// does); SIGHUP reloads the configuration.
///
/// A second SIGTERM during shutdown changes nothing: the stores are being flushed,
/// and the daemon still stops as soon as they are.
struct SignalService: Service {
    let signals: ProcessSignals
    /// Re-reads the configuration; logs what it did or why it kept the old one.
    let reload: @Sendable () -> Void
    let logger: Logger

    func run() async throws {
        for await number in signals.received.cancelOnGracefulShutdown() {
            guard number == SIGHUP else {
                logger.info("received \(ProcessSignals.name(number)); stopping")
                SystemdNotifier.notify("STOPPING=1")
                return
            }
            reload()
        }
    }
}

extension SignalService {
    /// The signals the context holds, and its reload; `nil` without signals.
    init?(context: DaemonContext) {
        guard let signals = context.signals else { return nil }
        let reload = context.configurationReload
        self.init(signals: signals, reload: { reload?.reload() }, logger: context.logger)
    }
}
