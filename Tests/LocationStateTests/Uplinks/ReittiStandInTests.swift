import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The Reitti stand-in reads Overland batches as Reitti does (dedicatedcode/reitti @ 833483af
/// OverlandIngestionApiController.java, OverlandLocationRequest.java, its token filters).
@Suite(.timeLimit(.minutes(5))) struct ReittiStandInTests {
    private let url = "/api/v1/ingest/overland"
    private let json = [("Content-Type", "application/json")]

    /// The encoder's batch is kept point by point with its accuracy and time (a `Z` offset
    /// with milliseconds, which ISO_OFFSET_DATE_TIME reads); 200 `{"result":"ok"}`.
    @Test func batchIsKept() async throws {
        let server = try await UplinkServer(.reittiOverland(token: "t0k"))
        let body = StandInFixtures.overland([StandInFixtures.fix, StandInFixtures.fix(after: 1, north: 10)])
        let answer = try await withUplinkTestClient {
            try await $0.send(server.url + url, headers: json + [("Authorization", "Bearer t0k")], body: body)
        }
        #expect(answer.status == 200)
        #expect(OverlandBatch.isAcknowledgement(Array(answer.body.utf8)))
        #expect(server.stored.count == 2)
        #expect(isClose(server.stored.first?.time?.timeIntervalSince1970, 1_778_749_200.75, 1e-3))
        #expect(server.stored.first?.accuracy == 4.4)
        #expect(isClose(server.stored.first?.latitude, 52.514_512_346, 1e-9))
    }

    /// A point without `horizontal_accuracy`, or with Overland's `-0700` offset, is dropped
    /// while the answer is still `{"result":"ok"}` (controller:58-68; request:91-103).
    @Test func dropsWithoutAccuracyOrWithAColonlessOffset() async throws {
        let server = try await UplinkServer(.reittiOverland(token: "t0k"))
        var noAccuracy = StandInFixtures.fix
        noAccuracy.eph = nil
        let colonless =
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{"timestamp":"2015-10-01T08:00:00-0700","horizontal_accuracy":5}}]}"#
        try await withUplinkTestClient { client throws in
            for body in [StandInFixtures.overland([noAccuracy]), Array(colonless.utf8)] {
                let answer = try await client.send(server.url + url + "?token=t0k", headers: json, body: body)
                #expect(answer.status == 200)
                #expect(OverlandBatch.isAcknowledgement(Array(answer.body.utf8)))
            }
        }
        #expect(server.stored.isEmpty)
    }

    /// A wrong token is a 401, none a 302 to the login page, a body that is not JSON a 415
    /// (BaseTokenAuthenticationFilter.java:65-84; HtmxAuthenticationEntryPoint.java:20-33).
    @Test func refusals() async throws {
        let server = try await UplinkServer(.reittiOverland(token: "t0k"))
        let body = StandInFixtures.overland([StandInFixtures.fix])
        try await withUplinkTestClient { client throws in
            let wrong = try await client.send(server.url + url, headers: json + [("X-API-Token", "nope")], body: body)
            #expect(wrong.status == 401)
            let urlRightHeaderWrong = try await client.send(
                server.url + url + "?token=t0k", headers: json + [("Authorization", "Bearer nope")], body: body)
            #expect(urlRightHeaderWrong.status == 401)
            let form = try await client.send(server.url + url + "?token=t0k", body: body)
            #expect(form.status == 415)
        }
        let anonymous = try await HTTPTestClient(port: server.port).request(
            "POST", url, json: try JSONSerialization.jsonObject(with: Data(body)))
        #expect(anonymous.status == 302)
        #expect(anonymous.headers["location"] == "/login")
        #expect(server.stored.isEmpty)
    }
}
