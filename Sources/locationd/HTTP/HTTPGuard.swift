import Hummingbird
import HummingbirdCore
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
        if let (status, reason) = refusal(request.head, localPort: context.channel.localAddress?.port) {
            return HTTPAnswer.error(status, reason)
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return HTTPAnswer.error(error.status, error.body ?? Self.reason(for: error.status, request))
        }
    }

    /// Why `head`, received on `localPort`, is refused before any route sees it, or nil
    /// when it passes: what ``handle(_:context:next:)`` answers, and what ``HTTPFastLast``
    /// asks before it answers on its own.
    func refusal(_ head: HTTPRequest, localPort: Int?) -> (HTTPResponse.Status, String)? {
        guard hosts.allows(head.authority, port: localPort) else {
            let host = head.authority.map { "'\($0.prefix(100))'" } ?? "none"
            return (
                .misdirectedRequest,
                "this server does not answer for the host \(host); name it in http-allowed-hosts to serve it"
            )
        }
        if let token {
            guard let offered = Self.offeredToken(head) else {
                return (.unauthorized, "a bearer token is required (Authorization: Bearer TOKEN)")
            }
            guard Self.constantTimeEqual(Array(offered.utf8), token) else {
                return (.unauthorized, "the bearer token is not valid")
            }
        }
        if let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            return (.contentTooLarge, "request bodies are limited to \(maxBodyBytes) bytes")
        }
        if head.headerFields[.transferEncoding] != nil {
            return (.contentTooLarge, "request bodies are limited to \(maxBodyBytes) bytes")
        }
        return nil
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
    private static func offeredToken(_ head: HTTPRequest) -> Substring? {
        if let header = head.headerFields[.authorization] {
            let prefix = "Bearer "
            guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix.lowercased() else {
                return nil
            }
            return header.dropFirst(prefix.count)
        }
        return URI(head.path ?? "").queryParameters["access_token"]
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
