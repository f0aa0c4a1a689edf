import Dispatch
import Foundation
import LocationMQTT
import LocationState
import LocationStores
import Logging
import ServiceLifecycle

// Every service of the daemon is made from its context, here or in the service's own file
// (`HTTPService(context:)`); the signal service alone also takes the signals and what a
// SIGHUP does.

extension ListenerService {
    /// `history` attached to the state it follows, on the listeners' queue; closed (its store
    /// flushed) when the group stops it.
    init(_ history: HistoryListener, context: DaemonContext) {
        let state = history.follows == .epochs ? context.epochLocation : context.deviceLocation
        let (listener, queue, whileAttached) = (history.listener, context.listeners, history.whileAttached)
        self.init(
            queue: queue,
            attach: {
                state.addListener(listener, on: queue)
                let stop = whileAttached?()
                return {
                    stop?()
                    state.removeListener(listener)
                }
            }, close: history.close)
    }

    /// The fixes counted for the status (`?STATUS`'s `fixes`): every report, as it comes.
    static func fixCounter(context: DaemonContext) -> ListenerService {
        let (counter, deviceLocation, queue) = (context.counter, context.deviceLocation, context.listeners)
        return ListenerService(
            queue: queue,
            attach: {
                let observation = deviceLocation.observe(on: queue, policy: .all) { change in
                    if let fix = change.new { counter.count(fix) }
                }
                return { observation.cancel() }
            }, close: {})
    }
}

extension MQTTService {
    /// The MQTT service when MQTT is on: the publisher follows the epochs, the status, the
    /// regions and the timeline.
    init?(context: DaemonContext) {
        guard let publisher = context.mqtt else { return nil }
        self.init(
            publisher: publisher, deviceLocation: context.epochLocation, status: context.status,
            regions: context.regions, timeline: context.timeline.map(MQTTService.Timeline.init(recorder:)))
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

extension ControlService {
    /// The control socket, answering from the context.
    init(context: DaemonContext) {
        let configuration = context.configuration
        self.init(
            server: ControlServer(
                path: configuration.resolvedSocketPath, mode: mode_t(configuration.socketMode),
                responder: ControlResponder(context: context), logger: context.logger))
    }
}

extension DataDirectoryWatch {
    /// The watch on the context's data directory.
    init(context: DaemonContext) {
        self.init(directory: context.configuration.dataDirectory, logger: context.logger)
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
