import Hummingbird
import LocationState
import LocationStores

/// Responses built from text the daemon already has as bytes: JSON, GPX, CSV, HTML.
enum HTTPAnswer {
    /// A `200 OK` (or `status`) with `body` of `contentType`; never cached, never sniffed.
    static func text(_ body: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        bytes(ByteBuffer(string: body), contentType: contentType, status: status)
    }

    /// ``text(_:contentType:status:)`` with the body's bytes.
    static func bytes(_ body: ByteBuffer, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: fields(contentType: contentType), body: ResponseBody(byteBuffer: body))
    }

    /// The header fields of every answer: its type, never cached, never sniffed.
    static func fields(contentType: String) -> HTTPFields {
        // Appended, not set: setting a field first looks for one of the same name.
        [.contentType: contentType, .cacheControl: "no-store", .xContentTypeOptions: "nosniff"]
    }

    /// A JSON object or array.
    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        text(body, contentType: "application/json", status: status)
    }

    /// A JSON object or array, as bytes.
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        bytes(body, contentType: "application/json", status: status)
    }

    /// An `Encodable` value as a JSON object.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        json(JSONLineEncoder().encodeFinite(value), status: status)
    }

    /// An error as `{"error":"one line"}`.
    static func error(_ status: HTTPResponse.Status, _ reason: String) -> Response {
        json(ErrorAnswer(error: reason), status: status)
    }

    private struct ErrorAnswer: Encodable {
        let error: String
    }
}
