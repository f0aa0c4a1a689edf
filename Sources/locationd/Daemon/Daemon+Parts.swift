import Dispatch
import LocationState
import LocationStores
import Logging
import ServiceLifecycle

extension ListenerService {
    /// The fix counter and the last fix store: one attachment for both, flushed at shutdown.
    static func lastFix(context: DaemonContext) -> ListenerService {
        let (store, counter, deviceLocation, queue) = (
            context.lastFix, context.counter, context.deviceLocation, context.listeners
        )
        return ListenerService(
            queue: queue,
            attach: {
                let observation = deviceLocation.observe(on: queue, policy: .all) { change in
                    if let fix = change.new { counter.count(fix) }
                    store.record(change.new)
                }
                return { observation.cancel() }
            }, close: { try store.flush() })
    }
}

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

extension ControlServer {
    /// ``start()`` with its failure as the one-line `LocationError` the daemon exits with.
    func startListening() async throws(LocationError) {
        do {
            try await start()
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: path, reason: "cannot listen there (\(error))")
        }
    }
}
