import Foundation
import Hummingbird
import HummingbirdCore
import LocationState
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP server as a service: the JSON API, Server-Sent Events and the page
/// (``HTTPRoutes``), on Hummingbird, until graceful shutdown.
///
/// It only reads the daemon's states, so the group stops it first: at graceful
/// shutdown every event stream is ended at once (an open page would otherwise hold
/// the shutdown for as long as it stays open), the listener closes, requests in
/// progress finish.
///
/// - Important: what a client can make the daemon spend is bounded: connections
///   (``HTTPServer/Limits/maxConnections``; beyond it new ones wait in the kernel's backlog,
///   ``HTTPServer/Limits/backlog``),
///   the request head (``HTTPServer/Limits/maxHeaderBytes``), request bodies (none is read; one
///   announced over ``HTTPServer/Limits/maxBodyBytes`` is refused with 413), idle connections and
///   slowly sent heads (closed after ``HTTPServer/Limits/idleTimeout``), and event streams
///   (``HTTPEventStreams``).
struct HTTPService: Service {
    let configuration: HTTPConfiguration
    let routes: HTTPRoutes
    /// The bearer token every request must carry; `nil` on loopback without a token file.
    let token: [UInt8]?
    /// Where the URL with the bound port goes once the server listens (for `?PAGE;`).
    var boundURL = Locked<String?>(nil)
    var limits = HTTPServer.Limits()
    let logger: Logger

    /// The routes behind the guard (token, bodies, unknown paths), as the server answers them.
    func router() -> Router<HTTPRequestContext> {
        let router = Router(context: HTTPRequestContext.self)
        router.add(middleware: requestGuard)
        routes.add(to: router)
        return router
    }

    /// What every request passes first.
    var requestGuard: HTTPGuard {
        HTTPGuard(hosts: HTTPAllowedHosts(configuration), token: token, maxBodyBytes: limits.maxBodyBytes)
    }

    func run() async throws {
        let router = router()
        let configuration = configuration
        let logger = logger
        let (authenticated, boundURL) = (token != nil, boundURL)
        let server = try HTTPServer.make(
            router: router, address: .hostname(configuration.host, port: configuration.port), limits: limits,
            fastLast: (requestGuard, { [lastBody = HTTPLastBody(shown: routes.responder.last)] in lastBody.body() }),
            logger: logger,
            onServerRunning: { channel in
                var bound = configuration
                bound.port = channel.localAddress?.port ?? configuration.port
                boundURL.withLock { $0 = bound.localURL }
                logger.notice(
                    "http: serving the page and the API at \(bound.url)\(authenticated ? " (bearer token required): `locationd page` prints the URL with it" : "")"
                )
            })
        let events = routes.events
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { await events.keepalive() }
                    try await server.run()
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                events.closeAll()
            }
        } catch {
            throw LocationError.unavailable("http: cannot serve at \(configuration.url): \(error)")
        }
    }
}

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
            events: HTTPEventStreams(logger: context.logger), watchers: context.watchers,
            basemap: configuration.http.basemap,
            timeline: context.timeline.map { [days = configuration.days] recorder in
                HTTPRoutes.Timeline(
                    motion: recorder.motion, events: recorder.events,
                    entries: { from, to in try recorder.boundedEntries(from: from, to: to).map(\.jsonString) },
                    places: { try recorder.placeLines(.list, days: days).dropLast() })
            },
            uplinks: context.uplinksJSON)
        self.init(
            configuration: configuration.http, routes: routes, token: context.httpToken, boundURL: context.httpURL,
            logger: context.logger)
    }
}
