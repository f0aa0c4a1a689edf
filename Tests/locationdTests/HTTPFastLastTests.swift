import Foundation
import HTTPTypes
import LocationTestSupport
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import locationd

/// `GET /api/v1/last` answered on the event loop (``HTTPFastLast``): only what the
/// router would answer the same way, with the router's answer, in the requests' order.
@Suite(.timeLimit(.minutes(5)))
struct HTTPFastLastTests {
    static let body = #"{"class":"TPV","state":"none","code":4}"#

    /// A channel with the handler alone, its guard answering for `127.0.0.1` and `token`.
    static func channel(token: String? = nil) throws -> EmbeddedChannel {
        var configuration = HTTPConfiguration()
        configuration.port = 8947
        let requestGuard = HTTPGuard(
            hosts: HTTPAllowedHosts(configuration), token: token.map { Array($0.utf8) }, maxBodyBytes: 4096)
        let channel = EmbeddedChannel()
        channel.localAddress = try SocketAddress(ipAddress: "127.0.0.1", port: configuration.port)
        try channel.pipeline.syncOperations.addHandler(
            HTTPFastLast(guard: requestGuard, body: { ByteBuffer(string: body) }))
        return channel
    }

    static func head(
        _ path: String = "/api/v1/last", method: HTTPRequest.Method = .get, authority: String = "127.0.0.1:8947",
        _ fields: HTTPFields = [:]
    ) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: fields))
    }

    /// Sends a request without a body; returns whether it went on to the router.
    static func send(_ head: HTTPRequestPart, on channel: EmbeddedChannel) throws -> Bool {
        try channel.writeInbound(head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        guard let first = try channel.readInbound(as: HTTPRequestPart.self) else { return false }
        let second = try channel.readInbound(as: HTTPRequestPart.self)
        guard case .head = first, case .end = second else {
            Issue.record("the request went on torn: \(first), \(String(describing: second))")
            return true
        }
        return true
    }

    /// The answer written by the handler itself, if any: head and body.
    static func answer(on channel: EmbeddedChannel) throws -> (HTTPResponse, String)? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        guard case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self),
            case .end(nil) = try channel.readOutbound(as: HTTPResponsePart.self)
        else {
            Issue.record("an answer without its body and end")
            return nil
        }
        return (head, String(buffer: body))
    }

    @Test func itAnswersAPlainGetWithTheRoutersFields() throws {
        let channel = try Self.channel()
        #expect(try Self.send(Self.head(), on: channel) == false)
        let (head, body) = try #require(try Self.answer(on: channel))
        #expect(head.status == .ok)
        #expect(body == Self.body)
        // The router's fields (HTTPAnswer.json), in its order, then the length and the date.
        #expect(
            head.headerFields.map(\.name) == [.contentType, .cacheControl, .xContentTypeOptions, .contentLength, .date])
        #expect(head.headerFields[.contentType] == "application/json")
        #expect(head.headerFields[.cacheControl] == "no-store")
        #expect(head.headerFields[.xContentTypeOptions] == "nosniff")
        #expect(head.headerFields[.contentLength] == String(Self.body.utf8.count))
        #expect(head.headerFields[.date] != nil)
    }

    /// A request the handler leaves to the router.
    struct Passed: Sendable, CustomTestStringConvertible {
        var path = "/api/v1/last"
        var method = HTTPRequest.Method.get
        var authority = "127.0.0.1:8947"
        var fields: HTTPFields = [:]
        var testDescription: String { "\(method) \(path) \(authority) \(fields)" }
    }

    @Test(arguments: [
        Passed(path: "/api/v1/last/"),
        Passed(path: "/api/v1/last?access_token=x"),
        Passed(path: "/api/v1/lastx"),
        Passed(method: .head),
        Passed(method: .post),
        // Hummingbird closes the connection after the answer to these.
        Passed(fields: [.connection: "close"]),
        Passed(fields: [.connection: "keep-alive"]),
        // What the guard refuses: another host, another port, a body.
        Passed(authority: "evil.example"),
        Passed(authority: "127.0.0.1:8948"),
        Passed(fields: [.contentLength: "5000"]),
        Passed(fields: [.transferEncoding: "chunked"]),
    ])
    func anythingElseGoesOnToTheRouter(_ request: Passed) throws {
        let channel = try Self.channel()
        let head = Self.head(request.path, method: request.method, authority: request.authority, request.fields)
        #expect(try Self.send(head, on: channel))
        #expect(try Self.answer(on: channel) == nil)
    }

    @Test func aTokenIsCheckedAsTheGuardChecksIt() throws {
        let channel = try Self.channel(token: "s3cret")
        #expect(try Self.send(Self.head(), on: channel))
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)  // the router's answer
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        #expect(try Self.send(Self.head("/api/v1/last", [.authorization: "Bearer s3creX"]), on: channel))
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        #expect(try Self.send(Self.head("/api/v1/last", [.authorization: "Bearer s3cret"]), on: channel) == false)
        #expect(try Self.answer(on: channel) != nil)
    }

    @Test func itWaitsForTheRoutersAnswersBeforeItAnswers() throws {
        let channel = try Self.channel()
        // A pipelined request for the router, then one for the handler: the second goes on
        // too, so that the answers keep the requests' order.
        #expect(try Self.send(Self.head("/api/v1/status"), on: channel))
        #expect(try Self.send(Self.head(), on: channel))
        #expect(try Self.answer(on: channel) == nil)
        // Both answered by the router: the handler answers again.
        for _ in 0..<2 {
            channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
            #expect(try channel.readOutbound(as: HTTPResponsePart.self) != nil)
        }
        #expect(try Self.send(Self.head(), on: channel) == false)
        #expect(try Self.answer(on: channel) != nil)
    }

    @Test func aDaemonAnswersPipelinedRequestsInTheirOrder() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let port = try await daemon.httpPort()
        let paths = ["/api/v1/status", "/api/v1/last", "/nowhere", "/api/v1/last", "/api/v1/last", "/api/v1/last/"]
        let hosts = ["127.0.0.1", "127.0.0.1", "127.0.0.1", "evil.example", "127.0.0.1", "127.0.0.1"]
        // One write, one connection: the last request closes it.
        let requests = zip(paths, hosts).enumerated().map { index, request in
            "GET \(request.0) HTTP/1.1\r\nHost: \(request.1):\(port)\r\n"
                + (index == paths.count - 1 ? "Connection: close\r\n" : "") + "\r\n"
        }
        let received = try await offThePool {
            let handle = try connectTCP(port: port)
            try handle.write(contentsOf: Data(requests.joined().utf8))
            return try handle.readToEnd() ?? Data()
        }
        let answers = try Self.answers(in: received)
        try #require(answers.count == paths.count, "\(String(decoding: received, as: UTF8.self))")
        #expect(answers.map(\.status) == [200, 200, 404, 421, 200, 200])
        #expect(try answers[0].object()["connected"] != nil, "the status first")
        for index in [1, 4, 5] {
            #expect(try answers[index].object()["class"] as? String == "TPV")
            #expect(try answers[index].object()["code"] != nil)
        }
        // The early answer and the router's have the same fields, in the same order.
        #expect(answers[4].names == answers[5].names)
        #expect(
            answers[4].names == ["content-type", "cache-control", "x-content-type-options", "content-length", "date"])
        #expect(try await daemon.stop().status == 0)
    }

    @Test func aClientAskingOnlyForTheFixStaysConnectedWhileItAsks() async throws {
        let directory = try TemporaryDirectory()
        let server = try await PageServer(directory: directory.path, idleTimeout: .seconds(4))
        defer { server.stop() }
        let port = server.port
        // Eight requests a second apart on one connection, twice the idle timeout: each
        // counts as activity for Hummingbird's connection-state handler.
        let (statuses, closedWhenIdle) = try await offThePool {
            let handle = try connectTCP(port: port, receiveTimeout: 60)
            var statuses: [Int] = []
            for index in 0..<8 {
                if index > 0 { usleep(1_000_000) }
                try handle.write(contentsOf: Data("GET /api/v1/last HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
                var received = Data()
                while (try? Self.answers(in: received).count) != 1 {
                    guard let more = Self.readSome(handle), !more.isEmpty else { return (statuses, false) }
                    received += more
                }
                statuses.append(try Self.answers(in: received)[0].status)
            }
            // Then idle: closed by the server (within the receive timeout).
            return (statuses, Self.readSome(handle) == Data())
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(closedWhenIdle)
    }

    /// What one read(2) gives: empty at the end of the stream, nil on an error (a timeout).
    static func readSome(_ handle: FileHandle) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var count = -1
        repeat { count = read(handle.fileDescriptor, &buffer, buffer.count) } while count < 0 && errno == EINTR
        return count >= 0 ? Data(buffer[0..<count]) : nil
    }

    struct Answer {
        var status: Int
        var names: [String]
        var body: Data

        func object() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
        }
    }

    /// The answers one after another in `data`, each read to its `Content-Length`.
    static func answers(in data: Data) throws -> [Answer] {
        var answers: [Answer] = []
        var rest = data[...]
        while let end = rest.range(of: Data("\r\n\r\n".utf8)) {
            let lines = String(decoding: rest[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let status = Int(lines[0].split(separator: " ")[1]) ?? -1
            let fields = lines.dropFirst().map { line in
                let colon = line.firstIndex(of: ":") ?? line.endIndex
                return (line[..<colon].lowercased(), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
            }
            let length = try #require(fields.first { $0.0 == "content-length" }.flatMap { Int($0.1) })
            let body = rest[end.upperBound...].prefix(length)
            answers.append(Answer(status: status, names: fields.map(\.0), body: Data(body)))
            rest = rest[min(end.upperBound + length, rest.endIndex)...]
        }
        return answers
    }
}
