import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

@testable import locationd

/// The daemon's HTTP routes answered in-process, behind the same guard as the server
/// (``HTTPService/router()``): no socket, no daemon, for tests where a socket adds nothing.
struct InProcessHTTP {
    let responder: RouterResponder<HTTPRequestContext>

    init(_ service: HTTPService) {
        responder = service.router().buildResponder()
    }

    /// One answer: the status, the headers and the whole body as text.
    struct Answer {
        var status: Int
        var headers: HTTPFields
        var body: String

        /// The body as a JSON object.
        func object() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// `GET path` with `headers`.
    func get(_ path: String, headers: HTTPFields = [:]) async throws -> Answer {
        let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: path, headerFields: headers)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let context = HTTPRequestContext(
            source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        let response = try await responder.respond(to: request, context: context)
        let collector = Collector()
        try await response.body.write(collector)
        return Answer(status: response.status.code, headers: response.headers, body: collector.text)
    }

    /// Gathers a response body.
    private final class Collector: ResponseBodyWriter, @unchecked Sendable {
        // Written by one `write` at a time, read after the body is finished.
        var bytes = ByteBuffer()
        var text: String { String(buffer: bytes) }

        func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            bytes.writeBuffer(&buffer)
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
