import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The server Hummingbird's `Application.run` builds, without the service it adds to
/// refresh the `Date` header: a timer that wakes an idle daemon every second
/// (docs/performance.md). ``HTTPDate`` formats the header on the answering thread.
enum HTTPServer {
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

    /// A server of `router` on `address`, within `limits`; `GET /api/v1/last` answered
    /// early with `lastBody` when `requestGuard` passes it (``HTTPFastLast``).
    static func make(
        router: Router<HTTPRequestContext>, address: BindAddress, limits: Limits,
        fastLast: (requestGuard: HTTPGuard, lastBody: @Sendable () -> ByteBuffer), logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> any Service {
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes,
            maxHeaderFieldCount: limits.maxHeaderFields)
        let responder = router.buildResponder()
        let configuration = HTTP1Channel.Configuration(
            idleTimeout: limits.idleTimeout, httpDecoderConfiguration: decoder)
        let builder = HTTPServerBuilder { responder in
            HTTP1FastLastChannel(
                http1: HTTP1Channel(responder: responder, configuration: configuration),
                requestGuard: fastLast.requestGuard, body: fastLast.lastBody)
        }
        return try builder.buildServer(
            configuration: ServerConfiguration(
                address: address, backlog: limits.backlog,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { request, writer, channel in
                let context = HTTPRequestContext(
                    source: ApplicationRequestContextSource(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    throw error  // as `Application.run`: the channel answers 400 and closes
                } catch {
                    logger.debug("http: unhandled error \(error)")
                    response = Response(status: .internalServerError, body: .init())
                }
                response.headers[.date] = HTTPDate.now()
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: onServerRunning)
    }
}
