import Logging
import ServiceLifecycle

extension ServiceGroupConfiguration {
    /// The daemon's group: whichever service ends, by returning or by throwing, the
    /// group shuts the others down gracefully (in the reverse order of `services`),
    /// and a graceful shutdown that takes over 30 s is cut short.
    static func daemon(_ services: [any Service], logger: Logger) -> ServiceGroupConfiguration {
        var group = ServiceGroupConfiguration(
            services: services.map {
                .init(
                    service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                    failureTerminationBehavior: .gracefullyShutdownGroup)
            }, logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(30)
        return group
    }
}
