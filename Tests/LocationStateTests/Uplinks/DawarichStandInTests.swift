import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The Dawarich stand-ins read the OwnTracks and Overland endpoints as Dawarich does
/// (Freika/dawarich @ 60734da4 app/controllers/api/v1/, app/services/own_tracks,
/// app/services/overland), behind Rails' parameter parsing.
@Suite(.timeLimit(.minutes(5))) struct DawarichStandInTests {
    private let key = "s3cret"

    /// The OwnTracks JSON with its topic is kept, `vel` 43 km/h as 11.9 m/s (rounded to a
    /// tenth only with a topic, params.rb:79-89); the key in the query; 200 `[]`.
    @Test func ownTracksWithTopicIsKept() async throws {
        let server = try await UplinkServer(.dawarichOwnTracks(apiKey: key))
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/v1/owntracks/points?api_key=\(key)", headers: StandInFixtures.ownTracksHeaders,
                body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        let fix = try #require(server.stored.first)
        #expect(fix.time == StandInFixtures.seconds)
        #expect(fix.speedMetersPerSecond == 11.9)
        #expect(isClose(fix.latitude, 52.514_512_3, 1e-7))
        #expect(fix.accuracy == 4)
    }

    /// Without a topic the km/h number is kept as m/s (params.rb:79-80): 43.
    @Test func ownTracksWithoutTopicKeepsKilometresPerHour() async throws {
        let server = try await UplinkServer(.dawarichOwnTracks(apiKey: key))
        _ = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/v1/owntracks/points", headers: [("Authorization", "Bearer \(key)")] + json,
                body: StandInFixtures.ownTracks(topic: false))
        }
        #expect(server.stored.first?.speedMetersPerSecond == 43)
    }

    private var json: [(String, String)] { [("Content-Type", "application/json")] }

    /// No key, a wrong one, or a wrong query key before a right Bearer: 401 with an empty
    /// body (api_controller.rb:37-41, 122-134).
    @Test(arguments: [("", "Bearer s3cret"), ("?api_key=nope", "Bearer s3cret"), ("", "Basic s3cret"), ("", "")])
    func wrongKeyIs401(query: String, authorization: String) async throws {
        let server = try await UplinkServer(.dawarichOwnTracks(apiKey: key))
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/v1/owntracks/points" + query,
                headers: json + (authorization.isEmpty ? [] : [("Authorization", authorization)]),
                body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == (query.isEmpty && authorization == "Bearer s3cret" ? 200 : 401))
        #expect(server.stored.count == (answer.status == 200 ? 1 : 0))
    }

    /// Rails parses a JSON body only under a JSON content type: without it the point is
    /// not read, yet the answer is 200 `[]` (points_controller.rb:7-10).
    @Test func withoutJSONContentTypeNothingIsKept() async throws {
        let server = try await UplinkServer(.dawarichOwnTracks(apiKey: key))
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/v1/owntracks/points?api_key=\(key)", body: StandInFixtures.ownTracks())
        }
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        #expect(server.stored.isEmpty)
    }

    /// A resent point replaces its row: unique by position, time and user
    /// (own_tracks/point_creator.rb:36-47).
    @Test func resendIsIdempotent() async throws {
        let server = try await UplinkServer(.dawarichOwnTracks(apiKey: key))
        try await withUplinkTestClient { client throws in
            for _ in 0..<2 {
                _ = try await client.send(
                    server.url + "/api/v1/owntracks/points?api_key=\(key)", headers: json,
                    body: StandInFixtures.ownTracks())
            }
        }
        #expect(server.requests.count == 2)
        #expect(server.stored.count == 1)
    }

    /// An Overland batch is kept point by point: [lon, lat], the ISO time with milliseconds,
    /// speed in m/s; 201 `{"result":"ok"}`, which the encoder takes as the acknowledgement
    /// (batches_controller.rb:7-10; overland/params.rb:14-35).
    @Test func overlandBatchIsKept() async throws {
        let server = try await UplinkServer(.dawarichOverland(apiKey: key))
        let body = StandInFixtures.overland([StandInFixtures.fix, StandInFixtures.fix(after: 1, north: 10)])
        let answer = try await withUplinkTestClient {
            try await $0.send(
                server.url + "/api/v1/overland/batches", headers: [("Authorization", "Bearer \(key)")] + json,
                body: body)
        }
        #expect(answer.status == 201)
        #expect(OverlandBatch.isAcknowledgement(Array(answer.body.utf8)))
        let stored = server.stored
        #expect(stored.count == 2)
        #expect(isClose(stored.first?.latitude, 52.514_512_346, 1e-9))
        #expect(isClose(stored.first?.longitude, -13.350_098_765, 1e-9))
        #expect(isClose(stored.first?.time?.timeIntervalSince1970, 1_778_749_200.75, 1e-3))
        #expect(stored.first?.speedMetersPerSecond == 12)
        #expect(stored.first?.accuracy == 4.4)
        #expect(stored.first?.device == "van")
    }

    /// A timestamp DateTime.parse cannot read (an integer) is a 500 with Dawarich's words
    /// (overland/params.rb:23; batches_controller.rb:11-15); a bad key a 401.
    @Test func overlandRefusals() async throws {
        let server = try await UplinkServer(.dawarichOverland(apiKey: key))
        let integerTime =
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{"timestamp":1700000000}}]}"#
        try await withUplinkTestClient { client throws in
            let failed = try await client.send(
                server.url + "/api/v1/overland/batches?api_key=\(key)", headers: json, body: Array(integerTime.utf8))
            #expect(failed.status == 500)
            #expect(failed.body == #"{"error":"Batch creation failed"}"#)
            #expect(!OverlandBatch.isAcknowledgement(Array(failed.body.utf8)))
            let unauthorized = try await client.send(
                server.url + "/api/v1/overland/batches?api_key=wrong", headers: json,
                body: StandInFixtures.overland([StandInFixtures.fix]))
            #expect(unauthorized.status == 401)
        }
        #expect(server.stored.isEmpty)
    }
}
