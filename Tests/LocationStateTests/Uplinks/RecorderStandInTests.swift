import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The OwnTracks Recorder stand-in reads `/pub` as the Recorder does (owntracks/recorder
/// @ ae2fd296 http.c, recorder.c): 200 `[]` for everything, kept or dropped.
@Suite(.timeLimit(.minutes(5))) struct RecorderStandInTests {
    /// The payload with `X-Limit-U`/`X-Limit-D` is kept under the lowercased user and
    /// device at the fix's `tst` (http.c:80-99, 645-654; recorder.c:1016-1034, 1227-1238).
    @Test func payloadIsKeptUnderTheHeadersUserAndDevice() async throws {
        let server = try await UplinkServer(.recorder)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/pub", headers: StandInFixtures.ownTracksHeaders, body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        let fix = try #require(server.stored.first)
        #expect(fix.device == "anna/van")
        #expect(fix.time == StandInFixtures.seconds)
        #expect(isClose(fix.latitude, 52.514_512_3, 1e-7))
        #expect(isClose(fix.longitude, -13.350_098_8, 1e-7))
        #expect(fix.accuracy == 4)
        #expect(fix.fields["vel"] == "43")
    }

    /// The headers override `?u=`/`?d=`; without either, owntracks/phone (http.c:80-99, 645-651).
    @Test func userAndDeviceFromQueryOrDefaults() async throws {
        let server = try await UplinkServer(.recorder)
        try await withUplinkTestClient { client throws in
            _ = try await client.send(server.url + "/pub?u=Bob&d=Car", body: StandInFixtures.ownTracks())
            _ = try await client.send(
                server.url + "/pub?u=bob&d=car", headers: [("X-Limit-U", "Eve")], body: StandInFixtures.ownTracks())
            _ = try await client.send(server.url + "/pub", body: StandInFixtures.ownTracks())
        }
        #expect(server.stored.map(\.device) == ["bob/car", "eve/car", "owntracks/phone"])
    }

    /// What it drops still gets 200 `[]`: no `lat`, not JSON, not a location, an empty
    /// user (a short topic) (recorder.c:775-809, 859-958, 1029-1034).
    @Test(arguments: [
        (#"{"_type":"location","lon":13.4,"tst":1700000000}"#, "anna"), ("lat=1", "anna"),
        (#"{"_type":"status","lat":1,"lon":2}"#, "anna"), (#"{"_type":"location","lat":1,"lon":2}"#, ""),
    ])
    func droppedButAnswered200(body: String, user: String) async throws {
        let server = try await UplinkServer(.recorder)
        let answer = try await withUplinkTestClient {
            try await $0.send(server.url + "/pub", headers: [("X-Limit-U", user)], body: Array(body.utf8))
        }
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        #expect(server.stored.isEmpty)
        #expect(server.requests.first?.dropped != nil)
    }

    /// Only `POST /pub` publishes (http.c:1449-1452).
    @Test func onlyPostPub() async throws {
        let server = try await UplinkServer(.recorder)
        try await withUplinkTestClient { client throws in
            #expect(try await client.send(server.url + "/pub", method: "GET").status == 404)
            #expect(try await client.send(server.url + "/", body: StandInFixtures.ownTracks()).status == 404)
        }
        #expect(server.stored.isEmpty)
    }

    /// `last` moves only to a strictly newer `tst` (recorder.c:709-733): the same fix twice
    /// leaves the first as the current position; both are in the history.
    @Test func currentOnlyByStrictlyNewerTime() async throws {
        let server = try await UplinkServer(.recorder)
        try await withUplinkTestClient { client throws in
            for location in [StandInFixtures.fix, StandInFixtures.fix(after: 0.2, north: 50)] {
                _ = try await client.send(
                    server.url + "/pub", headers: StandInFixtures.ownTracksHeaders,
                    body: StandInFixtures.ownTracks(location))
            }
        }
        #expect(server.stored.count == 2)
        #expect(server.current(device: "anna/van") == server.stored.first)
    }
}
