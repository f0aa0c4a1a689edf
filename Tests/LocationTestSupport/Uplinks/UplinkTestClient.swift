import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// AsyncHTTPClient, the library locationd's uplinks send with, set up for a test: one
/// connection pool (keep-alive), an optional CA file to trust instead of the system's store,
/// and a read timeout. Made and shut down by ``withUplinkTestClient(trusting:readTimeout:_:)``.
package struct UplinkTestClient: Sendable {
    /// An answer: status, header fields (names in lower case), the body as text.
    package struct Answer: Sendable {
        package let status: Int
        package let headers: [String: String]
        package let body: String
    }

    fileprivate let client: HTTPClient

    /// Sends `body` to `url` with `method` and `headers`; throws when the connection fails,
    /// closes before a whole answer, or stays silent past the read timeout.
    package func send(
        _ url: String, method: String = "POST", headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if !body.isEmpty || method == "POST" || method == "PUT" { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: fields, body: String(buffer: bytes))
    }
}

/// Runs `body` with a fresh ``UplinkTestClient`` that trusts `caFile` (when given), gives up
/// reading after `readTimeout` and connecting (with its retries, a TLS handshake's too) after
/// `connectTimeout`, and shuts it down after, whether `body` throws or not.
@discardableResult
package func withUplinkTestClient<T: Sendable>(
    trusting caFile: String? = nil, readTimeout: Duration = .seconds(60), connectTimeout: Duration = .seconds(60),
    _ body: (UplinkTestClient) async throws -> T
) async throws -> T {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let caFile { tls.trustRoots = .file(caFile) }
    func amount(_ duration: Duration) -> TimeAmount {
        .milliseconds(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
    let configuration = HTTPClient.Configuration(
        tlsConfiguration: tls, timeout: .init(connect: amount(connectTimeout), read: amount(readTimeout)))
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let result: Result<T, any Error>
    do {
        result = .success(try await body(UplinkTestClient(client: client)))
    } catch {
        result = .failure(error)
    }
    try await client.shutdown()
    return try result.get()
}
