import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The PhoneTrack stand-in reads its traccar, owntracks and overland routes as PhoneTrack
/// does (julien-nc/phonetrack @ 686c41a3 lib/Controller/LogController.php).
@Suite(.timeLimit(.minutes(5))) struct PhoneTrackStandInTests {
    private let kind = UplinkServer.Kind.phoneTrack(token: "abc123")
    private let log = "/apps/phonetrack/log"

    /// The OsmAnd query on `log/traccar/TOKEN/DEVICE`: kept under the URL's device, knots back
    /// to 12 m/s, the accuracy to two decimals; 200 `{"status":"success"}` (:1644-1684).
    @Test func traccarQueryIsKept() async throws {
        let server = try await UplinkServer(kind)
        let answer = try await withUplinkTestClient {
            try await $0.send(server.url + log + "/traccar/abc123/car?" + StandInFixtures.osmAnd(id: "van"))
        }
        #expect(answer.status == 200)
        #expect(answer.body == #"{"status":"success"}"#)
        let fix = try #require(server.stored.first)
        #expect(fix.device == "car")
        #expect(fix.time == StandInFixtures.seconds)
        #expect(isClose(fix.speedMetersPerSecond, 12, 1e-3))
        #expect(fix.accuracy == 4.4)
        #expect(isClose(fix.course, 271.25))
    }

    /// Without a device in the URL, the `id` names it (chooseDeviceName, :82-94); a wrong
    /// token or no timestamp is a 403, no `lat` a 400 (:920-944, 1663-1665).
    @Test func traccarDeviceAndRefusals() async throws {
        let server = try await UplinkServer(kind)
        try await withUplinkTestClient { client throws in
            #expect(
                try await client.send(server.url + log + "/traccar/abc123?" + StandInFixtures.osmAnd()).status == 200)
            #expect(
                try await client.send(server.url + log + "/traccar/nope/car?" + StandInFixtures.osmAnd()).status == 403)
            #expect(try await client.send(server.url + log + "/traccar/abc123/car?id=x&lat=1&lon=2").status == 403)
            #expect(
                try await client.send(server.url + log + "/traccar/abc123/car?id=x&lon=2&timestamp=1").status == 400)
            #expect(try await client.send(server.url + log + "/traccar/abc123/car", method: "GET").status == 405)
        }
        #expect(server.stored.map(\.device) == ["van"])
    }

    /// The OwnTracks JSON on `log/owntracks/TOKEN/DEVICE`: kept with its `tst`, 200 `[]`;
    /// `vel` is not read (:1546-1570); without a JSON content type, dropped under a 200.
    @Test func ownTracksIsKept() async throws {
        let server = try await UplinkServer(kind)
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + log + "/owntracks/abc123/car", headers: StandInFixtures.ownTracksHeaders,
                body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        #expect(server.stored.first?.time == StandInFixtures.seconds)
        #expect(server.stored.first?.speedMetersPerSecond == nil)
        #expect(server.stored.first?.device == "car")
        // Without a JSON content type Nextcloud does not decode the body: no `lat`, and
        // the message is ignored under a 200 (:1550-1553).
        let untyped = try await withUplinkTestClient {
            try await $0.send(server.url + log + "/owntracks/abc123/car", body: StandInFixtures.ownTracks())
        }
        #expect(untyped.status == 200)
        #expect(server.stored.count == 1)
    }

    /// An Overland batch is kept under each feature's `device_id`; 200 `{"result":"ok"}`;
    /// a wrong token ends it with a 403 (:1579-1605); without a JSON content type there is
    /// no `locations` array: a 500.
    @Test func overlandBatch() async throws {
        let server = try await UplinkServer(kind)
        let body = StandInFixtures.overland([StandInFixtures.fix, StandInFixtures.fix(after: 1, north: 10)])
        let json = [("Content-Type", "application/json")]
        try await withUplinkTestClient { client throws in
            let answer = try await client.send(server.url + log + "/overland/abc123/car", headers: json, body: body)
            #expect(answer.status == 200)
            #expect(OverlandBatch.isAcknowledgement(Array(answer.body.utf8)))
            #expect(
                try await client.send(server.url + log + "/overland/nope/car", headers: json, body: body).status == 403)
            #expect(try await client.send(server.url + log + "/overland/abc123/car", body: body).status == 500)
        }
        #expect(server.stored.map(\.device) == ["van", "van"])
        #expect(server.stored.first?.speedMetersPerSecond == 12)
        #expect(isClose(server.stored.first?.time?.timeIntervalSince1970, 1_778_749_200, 1e-9))
    }
}
