import LocationProviders
import Logging
import ServiceLifecycle

/// The location source as a service: runs a provider through a ``LocationCoordinator``
/// until graceful shutdown, which stops the provider first of all.
///
/// - Important: a provider that fails (a replay file that cannot be read, a
///   provider that gives up) is logged once with its reason, and the service then
///   waits for shutdown: the daemon goes on serving what it knows (the last fix,
///   the tile log, the control socket), with the status saying the source is lost.
public struct LocationSourceService: Service {
    private let coordinator: LocationCoordinator
    private let provider: any LocationProvider
    private let logger: Logger

    /// - Parameters:
    ///   - coordinator: owns `deviceLocation` and the status the provider's events feed.
    ///   - provider: where fixes come from.
    ///   - logger: where a failing provider is reported.
    public init(coordinator: LocationCoordinator, provider: any LocationProvider, logger: Logger) {
        self.coordinator = coordinator
        self.provider = provider
        self.logger = logger
    }

    public func run() async throws {
        let (coordinator, provider) = (coordinator, provider)
        do {
            try await cancelWhenGracefulShutdown { try await coordinator.run(provider) }
        } catch is CancellationError {
            return
        } catch {
            logger.error("the source stopped: \(error)")
        }
        // Ended by itself: stay in the group until it shuts down, so that the rest keeps serving.
        try? await gracefulShutdown()
    }
}

extension LocationSourceService {
    /// The configured source, read into the context's coordinator.
    init(context: DaemonContext) {
        self.init(
            coordinator: context.coordinator, provider: context.configuration.makeProvider(logger: context.logger),
            logger: context.logger)
    }
}
