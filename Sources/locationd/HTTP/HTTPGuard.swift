import Hummingbird
import LocationStores

/// What every request passes first: its `Host` (``HTTPAllowedHosts``, 421 otherwise),
/// the bearer token when one is configured, the size of an announced body, and
/// one-line JSON reasons for every error below it.
///
/// The token is accepted as `Authorization: Bearer TOKEN` or, for the page's own
/// requests (a browser cannot add headers to a page load or an `EventSource`), as the
/// `access_token` query parameter (RFC 6750, section 2.3). It is compared in constant
/// time. No CORS header is ever sent: only pages the daemon serves itself can read it.
struct HTTPGuard: RouterMiddleware {
    typealias Context = HTTPRequestContext

    let hosts: HTTPAllowedHosts
    let token: [UInt8]?
    let maxBodyBytes: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard hosts.allows(request.head.authority, port: context.channel.localAddress?.port) else {
            let host = request.head.authority.map { "'\($0.prefix(100))'" } ?? "none"
            return HTTPAnswer.error(
                .misdirectedRequest,
                "this server does not answer for the host \(host); name it in http-allowed-hosts to serve it")
        }
        if let token {
            guard let offered = Self.offeredToken(request) else {
                return HTTPAnswer.error(.unauthorized, "a bearer token is required (Authorization: Bearer TOKEN)")
            }
            guard Self.constantTimeEqual(Array(offered.utf8), token) else {
                return HTTPAnswer.error(.unauthorized, "the bearer token is not valid")
            }
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            return HTTPAnswer.error(.contentTooLarge, "request bodies are limited to \(maxBodyBytes) bytes")
        }
        if request.headers[.transferEncoding] != nil {
            return HTTPAnswer.error(.contentTooLarge, "request bodies are limited to \(maxBodyBytes) bytes")
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return HTTPAnswer.error(error.status, error.body ?? Self.reason(for: error.status, request))
        }
    }

    /// The reason given when a handler gave none.
    private static func reason(for status: HTTPResponse.Status, _ request: Request) -> String {
        switch status {
        case .notFound: "nothing at \(request.uri.path.prefix(200)); see /api/v1/ for what is served"
        case .methodNotAllowed: "only GET is served"
        default: status.reasonPhrase
        }
    }

    /// The token from `Authorization: Bearer …`, else from `?access_token=…`.
    private static func offeredToken(_ request: Request) -> Substring? {
        if let header = request.headers[.authorization] {
            let prefix = "Bearer "
            guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix.lowercased() else {
                return nil
            }
            return header.dropFirst(prefix.count)
        }
        return request.uri.queryParameters["access_token"]
    }

    /// Whether two byte strings are equal, in a time that depends on `expected`'s length only.
    static func constantTimeEqual(_ offered: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: offered.count ^ expected.count)
        difference |= offered.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= expected[index] ^ (index < offered.count ? offered[index] : 0)
        }
        return difference == 0
    }
}
