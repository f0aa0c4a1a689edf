import Foundation
import LocationState

extension HTTPService {
    /// The daemon's HTTP server: its answers from the daemon's context (as the control
    /// socket's), its tiles and tracks from the data directory.
    init(context: DaemonContext) {
        let configuration = context.configuration
        let routes = HTTPRoutes(
            responder: ControlResponder(context: context), status: context.status,
            statusJSON: { context.statusAnswer($0, tiles: $1) },
            dataDirectory: URL(fileURLWithPath: configuration.dataDirectory),
            tracksDirectory: configuration.tracksDirectory,
            events: HTTPEventStreams(logger: context.logger), basemap: configuration.http.basemap,
            timeline: context.timeline.map { recorder in
                HTTPRoutes.Timeline(motion: recorder.motion, events: recorder.events) { from, to in
                    try recorder.boundedEntries(from: from, to: to).map(\.jsonString)
                }
            })
        self.init(
            configuration: configuration.http, routes: routes, token: context.httpToken, boundURL: context.httpURL,
            logger: context.logger)
    }
}
