import AsyncHTTPClient
import Foundation
import LocationState
import NIOCore
import NIOHTTP1
import NIOSSL

/// One target's HTTP client settings and its requests: AsyncHTTPClient on the daemon's
/// event loops, one kept-alive connection, TLS with the system's trust store (plus the
/// target's CA file), the certificate and the host name always checked; redirects not
/// followed; bounded connect and read times and answer size.
///
/// The settings are checked when made (a CA file that cannot be read is an error at
/// start); the `HTTPClient` is made by ``open(on:)`` when sending starts, and must be
/// shut down by whoever opened it.
struct UplinkClient: Sendable {
    /// Answer bodies are read up to this; the rest is not needed to understand them.
    static let maximumAnswer = 64 * 1024

    private let configuration: HTTPClient.Configuration
    private let timeouts: Uplinks.Timeouts

    /// - Throws: ``LocationError/usage(_:)`` when the CA file cannot be read.
    init(caFile: String?, timeouts: Uplinks.Timeouts) throws(LocationError) {
        self.timeouts = timeouts
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
            } catch {
                throw .usage("\(caFile): not a PEM certificate file the uplink can trust (\(error))")
            }
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: Self.amount(timeouts.connect), read: Self.amount(timeouts.read)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1
        configuration.httpVersion = .http1Only
        self.configuration = configuration
    }

    /// A client with these settings on `eventLoopGroup`.
    func open(on eventLoopGroup: any EventLoopGroup) -> HTTPClient {
        HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    /// What the server answered.
    struct Reply: Sendable {
        var status: Int
        var retryAfter: String?
        var body: [UInt8]
    }

    /// Sends `request` (a POST) and reads the answer.
    ///
    /// - Throws: what went wrong on the way (no connection, a timeout, a reset, a TLS
    ///   failure): always a reason to try again later, never a refusal by the server.
    func send(_ request: UplinkRequest, with client: HTTPClient) async throws -> Reply {
        var http = HTTPClientRequest(url: request.url)
        http.method = .POST
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        http.body = .bytes(ByteBuffer(bytes: request.body))
        let response = try await client.execute(http, timeout: Self.amount(timeouts.request))
        var body = ByteBuffer()
        for try await var part in response.body where body.readableBytes < Self.maximumAnswer {
            body.writeBuffer(&part)
        }
        return Reply(
            status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
            body: Array(body.readableBytesView.prefix(Self.maximumAnswer)))
    }

    private static func amount(_ duration: Duration) -> TimeAmount {
        .microseconds(duration.microseconds)
    }
}
