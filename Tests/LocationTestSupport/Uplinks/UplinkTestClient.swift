import Foundation
import LocationUplinks
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The connection locationd's uplinks send with (``UplinkConnection``: one kept-alive
/// HTTP/1.1 connection), set up for a test: an optional CA file to trust instead of the
/// system's store, and a read timeout. Made and closed by
/// ``withUplinkTestClient(trusting:readTimeout:connectTimeout:_:)``.
package struct UplinkTestClient: Sendable {
    /// An answer: status, header fields (names in lower case), the body as text.
    package struct Answer: Sendable {
        package let status: Int
        package let headers: [String: String]
        package let body: String
    }

    fileprivate let connection: UplinkConnection

    /// Sends `body` to `url` with `method` and `headers`; throws when the connection fails,
    /// closes before a whole answer, or stays silent past the read timeout.
    package func send(
        _ url: String, method: String = "POST", headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> Answer {
        let answer = try await connection.send(
            HTTPMethod(rawValue: method), to: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
        var fields: [String: String] = [:]
        for header in answer.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: answer.status, headers: fields, body: String(decoding: answer.body, as: UTF8.self))
    }
}

/// Runs `body` with a fresh ``UplinkTestClient`` that trusts `caFile` (when given), gives up
/// reading after `readTimeout` and connecting after `connectTimeout`, and closes it after,
/// whether `body` throws or not.
@discardableResult
package func withUplinkTestClient<T: Sendable>(
    trusting caFile: String? = nil, readTimeout: Duration = .seconds(60), connectTimeout: Duration = .seconds(60),
    _ body: (UplinkTestClient) async throws -> T
) async throws -> T {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let caFile { tls.trustRoots = .file(caFile) }
    let connection = UplinkConnection(
        on: MultiThreadedEventLoopGroup.singleton, tls: try NIOSSLContext(configuration: tls),
        limits: .init(connect: connectTimeout, read: readTimeout, request: .seconds(120), answerBytes: 1 << 20))
    let result: Result<T, any Error>
    do {
        result = .success(try await body(UplinkTestClient(connection: connection)))
    } catch {
        result = .failure(error)
    }
    await connection.close()
    return try result.get()
}
