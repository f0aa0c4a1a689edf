import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// A loopback HTTP/1.1 server (keep-alive) that reads requests as a real location server
/// does (``Kind``): it keeps, drops and refuses what that server keeps, drops and refuses,
/// answers as it answers, and misbehaves on demand (``Behaviour``), so that a client's
/// encoder and sender are tested against the servers' own rules.
///
/// Everything is recorded before the answer leaves: once a client has its answer,
/// ``stored`` and ``requests`` already hold what the server made of the request.
package final class UplinkServer: Sendable {
    /// What the server does with the next requests; switchable while it runs.
    package enum Behaviour: Sendable {
        /// As the real server: its rules, its answers.
        case normal
        /// This answer instead, the request not read (a proxy's 503 with `Retry-After`, a 429).
        case answer(status: Int, headers: [String: String], body: String)
        /// Reads the request and never answers. A later behaviour (set with
        /// ``setBehaviour(_:)``) then handles the requests held, as if they had just come;
        /// ``stop()`` closes their connections.
        case hang
        /// Handles the request (a fix is kept), then sends the status line and part of the
        /// rest of the answer and closes the connection: an answer lost after the delivery.
        case closeMidReply
        /// Handles the request at once and sends the answer after `delay`.
        case slow(Duration)
    }

    package let kind: Kind
    package let port: Int
    /// Whether it serves HTTPS.
    package let isTLS: Bool
    private let core: UplinkServerCore

    /// Listens on 127.0.0.1 at `port` (else a free one below the ephemeral range, which
    /// stays free while the server is stopped), as `kind`; with `tls`, HTTPS with the
    /// authority's server certificate.
    package init(_ kind: Kind, tls: TestCertificateAuthority? = nil, port: Int? = nil) async throws {
        let context = try tls.map { authority in
            try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(authority.certificateFile).map {
                        .certificate($0)
                    },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: authority.keyFile, format: .pem))))
        }
        self.kind = kind
        isTLS = tls != nil
        core = UplinkServerCore(kind: kind, tls: context)
        if let port {
            self.port = try await core.listen(port: port)
        } else {
            self.port = try await core.listenAtFreePort()
        }
    }

    deinit { core.abandon() }

    /// `http://127.0.0.1:PORT` (or `https://`).
    package var url: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// Sets what the server does with the next requests (and with those it holds hanging).
    package func setBehaviour(_ behaviour: Behaviour) { core.setBehaviour(behaviour) }

    /// Stops listening and closes every connection: an outage. What was stored stays.
    package func stop() async { await core.stop() }

    /// Listens again on the same port after ``stop()``.
    package func start() async throws { _ = try await core.listen(port: port) }

    /// The fixes the server kept, in the order it kept them (a Dawarich resend replaces
    /// the row it repeats, in place).
    package var stored: [StoredFix] { core.snapshot { $0.stored } }

    /// Every request received, in order of arrival, with what became of it.
    package var requests: [RecordedRequest] { core.snapshot { $0.requests } }

    /// How many connections the server accepted (one for many requests when the client keeps it alive).
    package var connectionCount: Int { core.snapshot { $0.connections } }

    /// The device's current position as the server picks it (``Kind/currentPosition``).
    package func current(device: String) -> StoredFix? {
        let fixes = stored.filter { $0.device == device }
        switch kind.currentPosition {
        case .byArrival: return fixes.last
        case .byFixTime(let strictlyNewer):
            return fixes.reduce(nil) { current, fix in
                guard let current else { return fix }
                let newer =
                    strictlyNewer
                    ? fix.effectiveTime > current.effectiveTime : fix.effectiveTime >= current.effectiveTime
                return newer ? fix : current
            }
        }
    }

    /// The stored fixes once there are at least `count`; records an issue and throws when
    /// they are not there within `limit`.
    package func stored(
        atLeast count: Int, within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [StoredFix] {
        try await core.wait(for: "\(count) stored fixes", within: limit, sourceLocation: sourceLocation) {
            $0.stored.count >= count ? $0.stored : nil
        }
    }

    /// What became of request `index` (0 the first), once it is no longer pending.
    package func outcome(
        ofRequest index: Int, within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RecordedRequest.Outcome {
        try await core.wait(for: "an outcome of request \(index)", within: limit, sourceLocation: sourceLocation) {
            guard index < $0.requests.count, $0.requests[index].outcome != .pending else { return nil }
            return $0.requests[index].outcome
        }
    }

    /// The requests once at least `count` have arrived (answered or not).
    package func requests(
        atLeast count: Int, within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [RecordedRequest] {
        try await core.wait(for: "\(count) requests", within: limit, sourceLocation: sourceLocation) {
            $0.requests.count >= count ? $0.requests : nil
        }
    }
}
