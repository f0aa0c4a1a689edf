import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The Traccar stand-ins (OsmAnd on 5055, OwnTracks on 5144) read locationd's requests as
/// Traccar's decoders do (traccar/traccar @ 9e5c458a OsmAndProtocolDecoder.java,
/// OwnTracksProtocolDecoder.java), and refuse what they refuse.
@Suite(.timeLimit(.minutes(5))) struct TraccarStandInTests {
    private let osmAnd = UplinkServer.Kind.traccarOsmAnd(devices: ["van", "van+1 é"])

    /// The encoder's query in a POST with an empty body is stored with Traccar's reading:
    /// the time in seconds, knots back to 12 m/s, the id percent-decoded, extra keys kept.
    @Test func osmAndQueryIsStoredAsSent() async throws {
        let server = try await UplinkServer(osmAnd)
        let answer = try await withUplinkTestClient { client throws in
            try await client.send(server.url + "/?" + StandInFixtures.osmAnd(id: "van+1 é"))
        }
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        let fix = try #require(server.stored.first)
        #expect(server.stored.count == 1)
        #expect(fix.device == "van+1 é")
        #expect(isClose(fix.latitude, 52.514_512_346, 1e-9))
        #expect(isClose(fix.longitude, -13.350_098_765, 1e-9))
        #expect(fix.time == StandInFixtures.seconds)
        #expect(isClose(fix.speedMetersPerSecond, 12, 1e-3))
        #expect(isClose(fix.course, 271.25))
        #expect(isClose(fix.altitude, 35.6))
        #expect(isClose(fix.accuracy, 4.4))
        #expect(fix.fields["sat"] == "9")
        #expect(fix.fields["motion"] == "true")
        #expect(fix.fields["valid"] == "true")
    }

    /// An unknown device, or none: 400 with an empty body, nothing stored (decoder:99-104, 201-204).
    @Test(arguments: ["id=truck&lat=1&lon=2", "lat=1&lon=2&timestamp=1700000000", "deviceid=vanx&lat=1&lon=2"])
    func unknownOrMissingDeviceIs400(query: String) async throws {
        let server = try await UplinkServer(osmAnd)
        let answer = try await withUplinkTestClient { try await $0.send(server.url + "/?" + query) }
        #expect(answer.status == 400)
        #expect(answer.body.isEmpty)
        #expect(server.stored.isEmpty)
    }

    /// A value Java cannot parse closes the connection without an answer, nothing stored
    /// (decoder:113-129, 152; MainEventHandler.java:76-82): a decimal timestamp, an empty
    /// or textual number, a malformed escape.
    @Test(arguments: [
        "id=van&timestamp=1700000000.5&lat=1&lon=2", "id=van&lat=&lon=2", "id=van&lat=1&lon=2&speed=abc",
        "id=van&lat=1&lon=2&bearing=east", "id=van&timestamp=2016-01-27T18:55:47&lat=1&lon=2",
    ])
    func unparsableValueClosesTheConnection(query: String) async throws {
        let server = try await UplinkServer(osmAnd)
        try await expectNoAnswer(server.url + "/?" + query)
        let request = try #require(try await server.requests(atLeast: 1).first)
        #expect(request.outcome == .closedWithoutAnswer)
        #expect(server.stored.isEmpty)
    }

    /// A `%` without two hex digits makes Netty's decoder throw: closed without an answer
    /// (QueryStringDecoder.decodeComponent). Sent raw: a client library would escape the `%`.
    @Test func malformedEscapeClosesTheConnection() async throws {
        let server = try await UplinkServer(osmAnd)
        let request = "POST /?id=van%zz&lat=1&lon=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
        await #expect(throws: NoAnswer.self) { try await HTTPTestClient(port: server.port).send(Data(request.utf8)) }
        #expect(try await server.requests(atLeast: 1).first?.outcome == .closedWithoutAnswer)
        #expect(server.stored.isEmpty)
    }

    /// `timestamp`: integer seconds below 2^31-1, else milliseconds; ISO 8601 with a zone;
    /// "yyyy-MM-dd HH:mm:ss" in the server's zone (UTC here) (decoder:113-127; the test's
    /// values from OsmAndProtocolDecoderTest lines 41-48).
    @Test(arguments: [
        ("1377177267", 1_377_177_267.0), ("1442068686579", 1_442_068_686.579),
        ("2016-01-27T18%3A55%3A47Z", 1_453_920_947), ("2014-06-04+09%3A10%3A11", 1_401_873_011),
    ])
    func timestampForms(text: String, seconds: Double) async throws {
        let server = try await UplinkServer(osmAnd)
        let answer = try await withUplinkTestClient {
            try await $0.send(server.url + "/?id=van&lat=60.0&lon=30.0&timestamp=" + text)
        }
        #expect(answer.status == 200)
        #expect(isClose(server.stored.first?.time?.timeIntervalSince1970, seconds, 1e-3))
    }

    /// A `+` in the query is a space to Netty's decoder: an id written with a bare `+`
    /// names another device (the encoder escapes it as %2B).
    @Test func plusIsASpace() async throws {
        let server = try await UplinkServer(.traccarOsmAnd(devices: ["van+1"]))
        try await withUplinkTestClient { client throws in
            #expect(try await client.send(server.url + "/?id=van+1&lat=1&lon=2").status == 400)
            #expect(try await client.send(server.url + "/?id=van%2B1&lat=1&lon=2").status == 200)
        }
    }

    /// The query first; a form body only when the query is empty (decoder:82-87): with an
    /// `id` in the query, the body's `lat`/`lon` are not read and the position is outdated.
    @Test func formBodyOnlyWithoutQuery() async throws {
        let server = try await UplinkServer(osmAnd)
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        try await withUplinkTestClient { client throws in
            let body = Array("id=van&lat=1.5&lon=2.5&timestamp=1700000000".utf8)
            #expect(try await client.send(server.url + "/", headers: form, body: body).status == 200)
            let ignored = Array("lat=3.5&lon=4.5".utf8)
            #expect(try await client.send(server.url + "/?id=van", headers: form, body: ignored).status == 200)
        }
        let stored = server.stored
        #expect(stored.count == 2)
        #expect(isClose(stored.first?.latitude, 1.5))
        #expect(stored.last?.fields["outdated"] == "true")
        #expect(isClose(stored.last?.latitude, 1.5))
        #expect(stored.last?.time == nil)
    }

    /// A JSON content type selects Traccar's JSON decoder (decoder:71-76): a query request
    /// sent with it is closed without an answer.
    @Test func jsonContentTypeWithAQueryIsClosed() async throws {
        let server = try await UplinkServer(osmAnd)
        try await expectNoAnswer(
            server.url + "/?" + StandInFixtures.osmAnd(), headers: [("Content-Type", "application/json")])
        #expect(server.stored.isEmpty)
    }

    /// The current position is the newest by fix time (PostProcessHandler.java:49-59): an
    /// older fix arriving later is stored but does not replace it.
    @Test func currentPositionByFixTime() async throws {
        let server = try await UplinkServer(osmAnd)
        try await withUplinkTestClient { client throws in
            for location in [StandInFixtures.fix(after: 60, north: 100), StandInFixtures.fix] {
                #expect(try await client.send(server.url + "/?" + StandInFixtures.osmAnd(location)).status == 200)
            }
        }
        #expect(server.stored.count == 2)
        #expect(server.current(device: "van")?.time == StandInFixtures.seconds.addingTimeInterval(60))
    }

    /// The OwnTracks JSON with its topic is stored under the topic as the device id; `vel`
    /// 43 km/h through Traccar's knots is 11.94 m/s (decoder:54-59, 70-91).
    @Test func ownTracksIsStoredUnderItsTopic() async throws {
        let server = try await UplinkServer(.traccarOwnTracks(devices: ["owntracks/Anna/van"]))
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/", headers: StandInFixtures.ownTracksHeaders, body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == 200)
        let fix = try #require(server.stored.first)
        #expect(fix.device == "owntracks/Anna/van")
        #expect(fix.time == StandInFixtures.seconds)
        #expect(isClose(fix.latitude, 52.514_512_3, 1e-7))
        #expect(isClose(fix.speedMetersPerSecond, 43 / 3.6, 1e-3))
        #expect(fix.accuracy == 4)
    }

    /// Without a topic the device is the `tid`; an unregistered one is a 400 (decoder:54-65).
    @Test func ownTracksDeviceByTidElse400() async throws {
        let server = try await UplinkServer(.traccarOwnTracks(devices: ["an"]))
        try await withUplinkTestClient { client throws in
            let withTopic = try await client.send(server.url, body: StandInFixtures.ownTracks())
            #expect(withTopic.status == 400)
            let withoutTopic = try await client.send(server.url, body: StandInFixtures.ownTracks(topic: false))
            #expect(withoutTopic.status == 200)
        }
        #expect(server.stored.map(\.device) == ["an"])
    }

    /// Not JSON, or `tst` missing, closes the connection; another `_type` is a 200 with
    /// nothing stored (decoder:45-52, 70).
    @Test func ownTracksRefusals() async throws {
        let server = try await UplinkServer(.traccarOwnTracks(devices: ["an"]))
        try await expectNoAnswer(server.url, body: Array("lat=1".utf8))
        try await expectNoAnswer(server.url, body: Array(#"{"_type":"location","tid":"an","lat":1,"lon":2}"#.utf8))
        let status = try await withUplinkTestClient {
            try await $0.send(server.url, body: Array(#"{"_type":"status","tid":"an"}"#.utf8)).status
        }
        #expect(status == 200)
        #expect(server.stored.isEmpty)
    }
}
