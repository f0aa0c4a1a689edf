import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The Home Assistant stand-ins read the traccar, owntracks and gpslogger webhooks as Home
/// Assistant 2025.4.4 does (homeassistant/components/{webhook,traccar,owntracks,gpslogger}).
@Suite(.timeLimit(.minutes(5))) struct HomeAssistantStandInTests {
    private let traccar = UplinkServer.Kind.homeAssistantTraccar(webhook: "hook1")
    private let owntracks = UplinkServer.Kind.homeAssistantOwnTracks(webhook: "hook2")
    private let gpslogger = UplinkServer.Kind.homeAssistantGPSLogger(webhook: "hook3")

    /// The OsmAnd query in a POST is kept at the arrival time (the timestamp is only
    /// validated), `speed` as sent; 200 "Setting location for van" (traccar/__init__.py:42-88).
    @Test func traccarQueryIsKept() async throws {
        let server = try await UplinkServer(traccar)
        let answer = try await withUplinkTestClient {
            try await $0.send(server.url + "/api/webhook/hook1?" + StandInFixtures.osmAnd(id: "van-1"))
        }
        #expect(answer.status == 200)
        #expect(answer.body == "Setting location for van1")
        let fix = try #require(server.stored.first)
        #expect(fix.device == "van1")
        #expect(fix.time == nil)
        #expect(isClose(fix.latitude, 52.514_512_346, 1e-9))
        #expect(fix.accuracy == 4.4)
        #expect(fix.fields["speed"] == "23.326")
    }

    /// GET is 405 (webhook/__init__.py:150-162); PUT works as POST.
    @Test func getIs405PutWorks() async throws {
        let server = try await UplinkServer(traccar)
        try await withUplinkTestClient { client throws in
            let url = server.url + "/api/webhook/hook1?" + StandInFixtures.osmAnd()
            #expect(try await client.send(url, method: "GET").status == 405)
            #expect(try await client.send(url, method: "PUT").status == 200)
        }
        #expect(server.stored.count == 1)
    }

    /// A field the schema cannot read, or a missing one, is a 422 with voluptuous' message;
    /// a form body is not read, so its fields are missing (traccar/__init__.py:42-67).
    @Test(arguments: [
        ("?id=van&lat=1&lon=2&timestamp=1700000000.5", "", "expected int"),
        ("?id=van&lat=91&lon=2", "", "invalid latitude"), ("?id=van&lat=1&lon=2&speed=fast", "", "expected float"),
        ("?id=van&lat=1", "", "required key not provided"), ("", "id=van&lat=1&lon=2", "required key not provided"),
    ])
    func unreadableFieldIs422(query: String, form: String, message: String) async throws {
        let server = try await UplinkServer(traccar)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/webhook/hook1" + query,
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        }
        #expect(answer.status == 422)
        #expect(answer.body == message)
        #expect(server.stored.isEmpty)
    }

    /// Another webhook id answers 200 with an empty body, and keeps nothing
    /// (webhook/__init__.py:137-148): a 200 alone is no delivery.
    @Test func unregisteredWebhookIs200Empty() async throws {
        let server = try await UplinkServer(traccar)
        let answer = try await withUplinkTestClient {
            try await $0.send(server.url + "/api/webhook/other?" + StandInFixtures.osmAnd())
        }
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        #expect(server.stored.isEmpty)
    }

    /// The OwnTracks JSON with its topic is kept under slugify("Anna_van"); 200 `[]`
    /// (owntracks/__init__.py:156-214; messages.py:56-89).
    @Test func ownTracksIsKept() async throws {
        let server = try await UplinkServer(owntracks)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/webhook/hook2", headers: StandInFixtures.ownTracksHeaders,
                body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        let fix = try #require(server.stored.first)
        #expect(fix.device == "anna_van")
        #expect(fix.time == nil)
        #expect(fix.accuracy == 4)
    }

    /// Without a topic, the headers name user and device (__init__.py:173-180); without
    /// both, without `acc` or with `acc` 0 the location is dropped, still 200 `[]`
    /// (__init__.py:182-188, 245-261). The encoder's `acc` of a sub-metre fix is 1: kept.
    @Test func ownTracksDrops() async throws {
        let server = try await UplinkServer(owntracks)
        var precise = StandInFixtures.fix
        precise.eph = 0.3
        let url = server.url + "/api/webhook/hook2"
        try await withUplinkTestClient { client throws in
            let noTopic = StandInFixtures.ownTracks(topic: false)
            for body in [
                noTopic, Array(#"{"_type":"location","lat":1,"lon":2,"topic":"owntracks/a/b"}"#.utf8),
                Array(#"{"_type":"location","lat":1,"lon":2,"acc":0,"topic":"owntracks/a/b"}"#.utf8),
                Array("not json".utf8),
            ] {
                let answer = try await client.send(url, body: body)
                #expect(answer.status == 200)
                #expect(answer.body == "[]")
            }
            #expect(server.stored.isEmpty)
            _ = try await client.send(url, headers: StandInFixtures.ownTracksHeaders, body: noTopic)
            _ = try await client.send(url, body: StandInFixtures.ownTracks(precise))
        }
        #expect(server.stored.map(\.device) == ["anna_van", "anna_van"])
        #expect(server.stored.last?.accuracy == 1)
    }

    /// The GPSLogger form is kept at the arrival time under the device without its `-`s,
    /// `speed` as sent; 200 "Setting location for van1" (gpslogger/__init__.py:36-88).
    @Test func gpsLoggerFormIsKept() async throws {
        let server = try await UplinkServer(gpslogger)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/webhook/hook3", headers: StandInFixtures.formHeaders,
                body: StandInFixtures.gpsLogger(device: "van-1"))
        }
        #expect(answer.status == 200)
        #expect(answer.body == "Setting location for van1")
        let fix = try #require(server.stored.first)
        #expect(fix.device == "van1" && fix.time == nil)
        #expect(isClose(fix.latitude, 52.514_512_346, 1e-9) && fix.accuracy == 4.4)
        #expect(fix.fields["speed"] == "12.000" && fix.fields["provider"] == "gpsd")
    }

    /// A field the schema does not name, one it cannot read or a missing one is a 422 with
    /// voluptuous' message; the fields of a query or of a body under another content type
    /// are not read (gpslogger/__init__.py:41-66; aiohttp web_request.py:709-716).
    @Test(arguments: [
        ("", "latitude=1&longitude=2&device=van&hdop=1", "extra keys not allowed"),
        ("", "latitude=91&longitude=2&device=van", "invalid latitude"),
        ("", "latitude=1&longitude=2&device=van&speed=fast", "expected float"),
        ("", "latitude=1&device=van", "required key not provided"),
        ("?latitude=1&longitude=2&device=van", "", "required key not provided"),
    ])
    func gpsLoggerUnreadableFieldIs422(query: String, form: String, message: String) async throws {
        let server = try await UplinkServer(gpslogger)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/webhook/hook3" + query, headers: StandInFixtures.formHeaders, body: Array(form.utf8))
        }
        #expect(answer.status == 422)
        #expect(answer.body == message)
        #expect(server.stored.isEmpty)
    }

    /// Without a form content type the body is not read: the required fields are missing.
    @Test func gpsLoggerNeedsTheFormContentType() async throws {
        let server = try await UplinkServer(gpslogger)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/webhook/hook3", headers: [("Content-Type", "application/json")],
                body: StandInFixtures.gpsLogger())
        }
        #expect(answer.status == 422 && answer.body == "required key not provided")
    }

    /// The current position is the last to arrive, whatever its time (device_tracker.py:178-191).
    @Test func currentPositionByArrival() async throws {
        let server = try await UplinkServer(traccar)
        try await withUplinkTestClient { client throws in
            for location in [StandInFixtures.fix(after: 60, north: 100), StandInFixtures.fix] {
                _ = try await client.send(server.url + "/api/webhook/hook1?" + StandInFixtures.osmAnd(location))
            }
        }
        #expect(isClose(server.current(device: "van")?.latitude, 52.514_512_346, 1e-9))
    }
}
