import Foundation
import LocationState
import NIOCore
import NIOSSL

/// One target's HTTP client settings: TLS with the system's trust store (plus the
/// target's CA file), the certificate and the host name always checked; redirects not
/// followed; bounded connect and read times and answer size. Its requests go over one
/// kept-alive ``UplinkConnection``.
///
/// The settings are checked when made (a CA file that cannot be read is an error at
/// start); the connection is made by ``open(on:)`` when sending starts, and must be
/// closed by whoever opened it.
struct UplinkClient: Sendable {
    /// Answer bodies are read up to this; the rest is not needed to understand them.
    static let maximumAnswer = 64 * 1024

    /// The TLS settings, made for an `https` URL only.
    private let tls: NIOSSLContext?
    private let limits: UplinkConnection.Limits

    /// - Throws: ``LocationError/usage(_:)`` when the CA file cannot be read, or, for an
    ///   `https` URL, the system's trust store.
    init(url: URL, caFile: String?, timeouts: Uplinks.Timeouts) throws(LocationError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
            } catch {
                throw .usage("\(caFile): not a PEM certificate file the uplink can trust (\(error))")
            }
        }
        if url.scheme?.lowercased() == "https" {
            do {
                self.tls = try NIOSSLContext(configuration: tls)
            } catch {
                throw .usage("\(url.host ?? "https"): TLS cannot be set up with the system's trust store (\(error))")
            }
        } else {
            self.tls = nil
        }
        limits = UplinkConnection.Limits(
            connect: timeouts.connect, read: timeouts.read, request: timeouts.request, answerBytes: Self.maximumAnswer)
    }

    /// A connection with these settings on one of `eventLoopGroup`'s loops.
    func open(on eventLoopGroup: any EventLoopGroup) -> UplinkConnection {
        UplinkConnection(on: eventLoopGroup, tls: tls, limits: limits)
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
    func send(_ request: UplinkRequest, with connection: UplinkConnection) async throws -> Reply {
        let answer = try await connection.send(.POST, to: request.url, headers: request.headers, body: request.body)
        return Reply(status: answer.status, retryAfter: answer.headers.first(name: "Retry-After"), body: answer.body)
    }
}
