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
///   (``Limits/maxConnections``; beyond it new ones wait in the kernel's backlog,
///   ``Limits/backlog``),
///   the request head (``Limits/maxHeaderBytes``), request bodies (none is read; one
///   announced over ``Limits/maxBodyBytes`` is refused with 413), idle connections and
///   slowly sent heads (closed after ``Limits/idleTimeout``), and event streams
///   (``HTTPEventStreams``).
struct HTTPService: Service {
    /// The bounds on what clients may cost.
    struct Limits: Sendable {
        var maxConnections = 256
        /// The kernel's queue of connections not yet accepted (nginx has 511): a burst of a
        /// thousand waits there for a slot instead of being reset (the kernel caps it at
        /// `net.core.somaxconn`).
        var backlog = 1024
        var maxHeaderBytes = 16 * 1024
        var maxHeaderFields = 64
        var maxBodyBytes = 4096
        var idleTimeout: TimeAmount = .seconds(30)
    }

    let configuration: HTTPConfiguration
    let routes: HTTPRoutes
    /// The bearer token every request must carry; `nil` on loopback without a token file.
    let token: [UInt8]?
    /// Where the URL with the bound port goes once the server listens (for `?PAGE;`).
    var boundURL = Locked<String?>(nil)
    var limits = Limits()
    let logger: Logger

    /// The routes behind the guard (token, bodies, unknown paths), as the server answers them.
    func router() -> Router<HTTPRequestContext> {
        let router = Router(context: HTTPRequestContext.self)
        router.add(
            middleware: HTTPGuard(
                hosts: HTTPAllowedHosts(configuration), token: token, maxBodyBytes: limits.maxBodyBytes))
        routes.add(to: router)
        return router
    }

    func run() async throws {
        let router = router()
        let configuration = configuration
        let logger = logger
        let (authenticated, boundURL) = (token != nil, boundURL)
        let server = try HTTPServer.make(
            router: router, address: .hostname(configuration.host, port: configuration.port), limits: limits,
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
