import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The stand-ins' misbehaviour on demand (hanging, closing mid-answer, slow, answering
/// 503), their outages (stop and start on the same port), keep-alive, and HTTPS with a
/// test certificate authority.
@Suite(.timeLimit(.minutes(5))) struct UplinkServerBehaviourTests {
    private let overland = UplinkServer.Kind.dawarichOverland(apiKey: "k")

    private func batch(_ server: UplinkServer) -> (url: String, headers: [(String, String)], body: [UInt8]) {
        (
            server.url + "/api/v1/overland/batches?api_key=k", [("Content-Type", "application/json")],
            StandInFixtures.overland([StandInFixtures.fix])
        )
    }

    /// `hang`: the request is recorded and never answered (the client's read timeout
    /// ends it), nothing kept; the next behaviour handles the held request.
    @Test func hangHoldsTheRequestUntilReleased() async throws {
        let server = try await UplinkServer(overland)
        server.setBehaviour(.hang)
        let (url, headers, body) = batch(server)
        try await withUplinkTestClient(readTimeout: .seconds(1)) { client throws in
            await #expect(throws: (any Error).self) { try await client.send(url, headers: headers, body: body) }
        }
        #expect(server.requests.map(\.outcome) == [.pending])
        #expect(server.stored.isEmpty)
        server.setBehaviour(.normal)
        #expect(try await server.outcome(ofRequest: 0) == .answered(status: 201))
        #expect(server.stored.count == 1)
    }

    /// `closeMidReply`: the batch is kept, the answer cut after the status line and the
    /// connection closed: the client sees no whole answer.
    @Test func closeMidReplyKeepsTheFixAndLosesTheAnswer() async throws {
        let server = try await UplinkServer(overland)
        server.setBehaviour(.closeMidReply)
        let (url, headers, body) = batch(server)
        try await expectNoAnswer(url, headers: headers, body: body)
        #expect(server.stored.count == 1)
        #expect(server.requests.first?.outcome == .closedMidAnswer(status: 201))
        let raw =
            "POST /api/v1/overland/batches?api_key=k HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\r\n" + String(decoding: body, as: UTF8.self)
        let bytes = try await offThePool { () throws -> String in
            let handle = try connectTCP(port: server.port)
            try handle.write(contentsOf: Data(raw.utf8))
            return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(bytes.hasPrefix("HTTP/1.1 201 Created\r\n"))
        #expect(!bytes.contains("\r\n\r\n"))
    }

    /// `slow`: the answer comes after the delay; a client that gives up first has no
    /// answer although the fix is kept.
    @Test func slowAnswersLate() async throws {
        let server = try await UplinkServer(overland)
        let (url, headers, body) = batch(server)
        server.setBehaviour(.slow(.milliseconds(200)))
        let late = try await withUplinkTestClient { try await $0.send(url, headers: headers, body: body) }
        #expect(late.status == 201)
        server.setBehaviour(.slow(.seconds(30)))
        try await withUplinkTestClient(readTimeout: .seconds(1)) { client throws in
            await #expect(throws: (any Error).self) { try await client.send(url, headers: headers, body: body) }
        }
        #expect(server.requests.last?.outcome == .pending)
        #expect(server.stored.count == 1)
    }

    /// `answer`: a 503 with `Retry-After`, the request not read; then back to normal.
    @Test func answerGivesTheStatusAndHeaders() async throws {
        let server = try await UplinkServer(overland)
        let (url, headers, body) = batch(server)
        server.setBehaviour(.answer(status: 503, headers: ["Retry-After": "7"], body: "busy"))
        try await withUplinkTestClient { client throws in
            let busy = try await client.send(url, headers: headers, body: body)
            #expect(busy.status == 503)
            #expect(busy.headers["retry-after"] == "7")
            #expect(busy.body == "busy")
            #expect(server.stored.isEmpty)
            server.setBehaviour(.normal)
            #expect(try await client.send(url, headers: headers, body: body).status == 201)
        }
        #expect(server.stored.count == 1)
    }

    /// `stop` is an outage (connections refused, a hanging request closed); `start`
    /// listens again on the same port, and what was kept stays.
    @Test func stopAndStartOnTheSamePort() async throws {
        let server = try await UplinkServer(overland)
        let (url, headers, body) = batch(server)
        try await withUplinkTestClient { client throws in
            #expect(try await client.send(url, headers: headers, body: body).status == 201)
        }
        server.setBehaviour(.hang)
        let hanging = Task { try await withUplinkTestClient { try await $0.send(url, headers: headers, body: body) } }
        _ = try await server.requests(atLeast: 2)
        await server.stop()
        await #expect(throws: (any Error).self) { try await hanging.value }
        #expect(server.requests.last?.outcome == .closedWithoutAnswer)
        #expect(!Mosquitto.accepts(port: server.port))
        server.setBehaviour(.normal)
        try await server.start()
        try await withUplinkTestClient { client throws in
            #expect(try await client.send(url, headers: headers, body: body).status == 201)
        }
        #expect(server.stored.count == 1)
        #expect(server.requests.count == 3)
    }

    /// Keep-alive: requests in a row from one client go over one connection.
    @Test func keepAlive() async throws {
        let server = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
        try await withUplinkTestClient { client throws in
            for seconds in 0..<3 {
                let query = StandInFixtures.osmAnd(StandInFixtures.fix(after: Double(seconds)))
                #expect(try await client.send(server.url + "/?" + query).status == 200)
            }
        }
        #expect(server.stored.count == 3)
        #expect(server.connectionCount == 1)
    }

    /// The request target is the URL's path and query as written (`/` when it has no path,
    /// the fragment left out); a request to another origin goes over a connection of its
    /// own, and one back to the first origin over a new one.
    @Test func theRequestTargetIsThePathAndQuery() async throws {
        let first = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
        let second = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
        let query = StandInFixtures.osmAnd()
        try await withUplinkTestClient { client throws in
            _ = try await client.send(first.url + "?" + query)
            _ = try await client.send(first.url + "/?" + query + "#fragment")
            _ = try await client.send(second.url + "/traccar/?" + query)
            _ = try await client.send(first.url)
        }
        #expect(first.requests.map(\.target) == ["/?" + query, "/?" + query, "/"])
        #expect(second.requests.map(\.target) == ["/traccar/?" + query])
        #expect(first.connectionCount == 2)
        #expect(second.connectionCount == 1)
    }

    /// HTTPS: a client that trusts the test authority gets through, by address and by
    /// name; one that trusts only the system's store fails the handshake (the certificate
    /// does not verify), and nothing reaches the server.
    @Test func tlsWithATestAuthority() async throws {
        let authority = try await TestCertificateAuthority()
        let server = try await UplinkServer(.traccarOsmAnd(devices: ["van"]), tls: authority)
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let url = server.url + "/?" + StandInFixtures.osmAnd()
        let trusted = try await withUplinkTestClient(trusting: authority.caFile) { try await $0.send(url) }
        #expect(trusted.status == 200)
        // The handshake fails: the certificate does not verify.
        try await withUplinkTestClient { client throws in
            let error = await #expect(throws: (any Error).self) { try await client.send(url) }
            let words = error.map { String(describing: $0) } ?? ""
            #expect(words.contains("handshake"), "\(words)")
        }
        let localhost = try await withUplinkTestClient(trusting: authority.caFile) {
            try await $0.send(url.replacingOccurrences(of: "127.0.0.1", with: "localhost"))
        }
        #expect(localhost.status == 200)
        #expect(server.stored.count == 2)
        #expect(server.requests.count == 2)
    }

    /// HTTPS to a server whose certificate, signed by a trusted authority, is for another
    /// name: the host name is checked, by address and by name, and nothing gets through.
    @Test func aCertificateForAnotherHostIsRefused() async throws {
        let authority = try await TestCertificateAuthority(names: ["DNS:elsewhere.test"])
        let server = try await UplinkServer(.traccarOsmAnd(devices: ["van"]), tls: authority)
        let url = server.url + "/?" + StandInFixtures.osmAnd()
        try await withUplinkTestClient(trusting: authority.caFile) { client throws in
            for host in ["127.0.0.1", "localhost"] {
                let error = await #expect(throws: (any Error).self) {
                    try await client.send(url.replacingOccurrences(of: "127.0.0.1", with: host))
                }
                let words = error.map { String(describing: $0) } ?? ""
                #expect(words.contains("failedToValidateHostname"), "\(host): \(words)")
            }
        }
        #expect(server.requests.isEmpty)
        #expect(server.stored.isEmpty)
    }
}
