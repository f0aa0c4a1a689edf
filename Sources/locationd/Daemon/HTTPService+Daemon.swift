import Foundation
import LocationState
import Logging

extension HTTPService {
    /// The daemon's HTTP server: its answers from the daemon's states, its fix counter
    /// and last fix store (as the control socket's), its tiles and tracks from the data directory.
    static func daemon(
        configuration: DaemonConfiguration, deviceLocation: MonitoredState<Location?>,
        status: MonitoredState<ProviderStatus>, counter: FixCounter, lastFix: LastFixStore, startedAt: Date,
        regions: RegionService?, mqtt: MQTTPublisher? = nil, timeline: TimelineRecorder? = nil, token: [UInt8]?,
        logger: Logger
    ) -> HTTPService {
        let routes = HTTPRoutes(
            responder: .daemon(
                deviceLocation: deviceLocation, status: status, counter: counter, lastFix: lastFix,
                startedAt: startedAt, regions: regions, mqtt: mqtt, timeline: timeline),
            status: status,
            statusJSON: { value in
                ControlAnswers.status(
                    value, fixes: counter.fixes, uptimeSeconds: Date().timeIntervalSince(startedAt),
                    motion: timeline?.motion.value, mqtt: mqtt?.snapshot)
            },
            dataDirectory: URL(fileURLWithPath: configuration.dataDirectory),
            tracksDirectory: configuration.tracksDirectory,
            events: HTTPEventStreams(logger: logger), basemap: configuration.http.basemap)
        return HTTPService(configuration: configuration.http, routes: routes, token: token, logger: logger)
    }
}
