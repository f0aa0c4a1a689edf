import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState
@testable import LocationUplinks

/// Requests as each protocol's servers read them, and what their answers mean
/// (docs/uplink-servers.md).
@Suite(.timeLimit(.minutes(10))) struct UplinkRequestTests {
    private static func fix(_ id: Int64, position: Bool = true, moving: Bool? = nil) -> UplinkOutbox.Fix {
        let location = Location(
            time: Date(timeIntervalSince1970: 1_800_000_000 + Double(id)), mode: position ? .threeD : .noFix,
            lat: position ? 52.5 : nil, lon: position ? 13.35 : nil, speed: 12, eph: 4, source: .gpsd)
        return UplinkOutbox.Fix(id: id, location: location, moving: moving)
    }

    private static func target(_ text: String) throws -> UplinkTarget {
        try UplinkTarget.parse(text, origin: "test", visible: false, hostName: "pi")
    }

    /// OsmAnd: the fields in the query of a POST with an empty body; the URL's own `id`
    /// replaced by the target's device (named once); other query fields kept.
    @Test func osmandPutsTheFixInTheQueryOnce() throws {
        let target = try Self.target("osmand=http://traccar.local:5055/?id=van&key=abc")
        let request = try #require(
            UplinkRequest.make(for: target, fixes: [Self.fix(7, moving: true)], password: nil, token: nil))
        #expect(request.fixes == [7] && request.body.isEmpty)
        #expect(request.url.hasPrefix("http://traccar.local:5055/?key=abc&id=van&timestamp=1800000007&lat=52.5"))
        #expect(request.url.components(separatedBy: "id=van").count == 2)
        #expect(request.url.contains("&speed=23.326&") && request.url.hasSuffix("&motion=true"))
        #expect(!request.headers.contains { $0.name == "Content-Type" })
    }

    /// A fix no server would keep is passed over, not sent: the next one goes.
    @Test func aFixWithoutAPositionIsPassedOver() throws {
        let target = try Self.target("osmand=http://traccar.local:5055/")
        let request = try #require(
            UplinkRequest.make(
                for: target, fixes: [Self.fix(1, position: false), Self.fix(2)], password: nil, token: nil))
        #expect(request.fixes == [1, 2] && request.url.contains("timestamp=1800000002"))
        let nothing = try #require(
            UplinkRequest.make(for: target, fixes: [Self.fix(3, position: false)], password: nil, token: nil))
        #expect(nothing.isEmpty && nothing.fixes == [3])
    }

    /// OwnTracks: the JSON body with `topic`, the user and device in `X-Limit-U`/`X-Limit-D`,
    /// Basic authentication from the user and the password file.
    @Test func owntracksNamesUserAndDeviceAndAuthenticates() throws {
        let target = try Self.target("owntracks=https://recorder.example/pub user=anna device=van")
        let request = try #require(
            UplinkRequest.make(for: target, fixes: [Self.fix(1)], password: "pw", token: nil))
        let headers = Dictionary(request.headers.map { ($0.name, $0.value) }) { $1 }
        #expect(headers["X-Limit-U"] == "anna" && headers["X-Limit-D"] == "van")
        #expect(headers["Authorization"] == "Basic " + Data("anna:pw".utf8).base64EncodedString())
        #expect(headers["Content-Type"] == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(json["topic"] as? String == "owntracks/anna/van" && json["tst"] as? Int == 1_800_000_001)
        #expect(json["_type"] as? String == "location" && json["acc"] as? Int == 4)
    }

    /// Overland: up to the batch size in one request, `stationary` while stopped, a bearer token.
    @Test func overlandBatchesUpToItsSize() throws {
        let target = try Self.target("overland=https://dawarich.example/api/v1/overland/batches device=car")
        let fixes = (1...(Int64(UplinkRequest.overlandBatch) + 20)).map { Self.fix($0, moving: $0 == 1 ? false : true) }
        let request = try #require(UplinkRequest.make(for: target, fixes: fixes, password: nil, token: "t0k"))
        #expect(request.fixes == Array(1...Int64(UplinkRequest.overlandBatch)))
        #expect(request.headers.contains { $0 == ("Authorization", "Bearer t0k") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        let features = try #require(json["locations"] as? [[String: Any]])
        #expect(features.count == UplinkRequest.overlandBatch)
        let first = try #require(features.first?["properties"] as? [String: Any])
        #expect(first["motion"] as? [String] == ["stationary"] && first["device_id"] as? String == "car")
        #expect((features[1]["properties"] as? [String: Any])?["motion"] == nil)
        #expect(request.newestTime == Date(timeIntervalSince1970: 1_800_000_000 + Double(UplinkRequest.overlandBatch)))
    }

    /// GPSLogger: the form in the body of a POST to the URL as given, one fix a request.
    @Test func gpsloggerPostsTheFixAsAForm() throws {
        let target = try Self.target("gpslogger=http://ha.local:8123/api/webhook/abc device=van")
        let request = try #require(
            UplinkRequest.make(for: target, fixes: [Self.fix(3), Self.fix(4)], password: nil, token: nil))
        #expect(request.fixes == [3] && request.url == "http://ha.local:8123/api/webhook/abc")
        #expect(request.headers.contains { $0 == ("Content-Type", "application/x-www-form-urlencoded") })
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == "latitude=52.500000000&longitude=13.350000000&device=van&accuracy=4.000&speed=12.000&provider=gpsd")
        #expect(request.newestTime == Date(timeIntervalSince1970: 1_800_000_003) && target.history == .latest)
    }

    @Test(arguments: [
        (UplinkProtocol.osmand, 200, "", UplinkAnswer.delivered),
        (.owntracks, 200, "[]", .delivered),
        // Dawarich: 201 with {"result":"ok"}; a 200 without it is not a delivery.
        (.overland, 201, #"{"result":"ok"}"#, .delivered),
        (
            .overland, 200, "<html>",
            .refused(reason: "HTTP 200: <html> without {\"result\":\"ok\"}: is the URL an Overland endpoint?")
        ),
        // Traccar: an unknown device is 400 with an empty body.
        (.osmand, 400, "", .refused(reason: "HTTP 400")),
        (.owntracks, 401, "Unauthorized", .refused(reason: "HTTP 401: Unauthorized")),
        (.osmand, 405, "405: Method Not Allowed", .refused(reason: "HTTP 405: 405: Method Not Allowed")),
        (.osmand, 301, "", .refused(reason: "HTTP 301")),
        (
            .overland, 500, #"{"error":"Batch creation failed"}"#,
            .retry(reason: #"HTTP 500: {"error":"Batch creation failed"}"#, after: nil)
        ),
        (.osmand, 408, "", .retry(reason: "HTTP 408", after: nil)),
        // Home Assistant's gpslogger webhook: its handler's answer; an unknown webhook id is
        // 200 with an empty body, a field it cannot read 422.
        (.gpslogger, 200, "Setting location for van", .delivered),
        (
            .gpslogger, 200, "",
            .refused(reason: "HTTP 200 without \"Setting location for\": is the URL a registered gpslogger webhook?")
        ),
        (
            .gpslogger, 200, "[]",
            .refused(reason: "HTTP 200: [] without \"Setting location for\": is the URL a registered gpslogger webhook?")
        ),
        (
            .gpslogger, 422, "expected float",
            .refused(reason: "HTTP 422: expected float")
        ),
    ])
    func answersMeanWhatTheServersSay(kind: UplinkProtocol, status: Int, body: String, expected: UplinkAnswer) {
        #expect(UplinkAnswer.classify(kind, status: status, retryAfter: nil, body: Array(body.utf8)) == expected)
    }

    /// At a Home Assistant webhook, an OsmAnd fix is delivered only on the traccar webhook's
    /// own answer: an unknown webhook id answers 200 with an empty body and drops it. The
    /// owntracks webhook answers a dropped location as a taken one: a 2xx is a delivery.
    @Test(arguments: [
        (UplinkProtocol.osmand, "Setting location for van", UplinkAnswer.delivered),
        (
            .osmand, "",
            .refused(reason: "HTTP 200 without \"Setting location for\": is the URL a registered traccar webhook?")
        ),
        (.owntracks, "[]", .delivered),
    ])
    func homeAssistantWebhooksAnswersMeanWhatTheySay(kind: UplinkProtocol, body: String, expected: UplinkAnswer) {
        let answer = UplinkAnswer.classify(
            kind, atHomeAssistantWebhook: true, status: 200, retryAfter: nil, body: Array(body.utf8))
        #expect(answer == expected)
    }

    /// `Retry-After` as seconds or an HTTP date, at most an hour; anything else is ignored.
    @Test func retryAfterIsHonoured() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(UplinkAnswer.delay(retryAfter: "120", now: now) == .seconds(120))
        #expect(UplinkAnswer.delay(retryAfter: "Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(UplinkAnswer.delay(retryAfter: "999999", now: now) == .seconds(3600))
        #expect(UplinkAnswer.delay(retryAfter: "soon", now: now) == nil)
        #expect(UplinkAnswer.delay(retryAfter: "-5", now: now) == nil)
        #expect(
            UplinkAnswer.classify(.osmand, status: 503, retryAfter: "7", body: [])
                == .retry(reason: "HTTP 503", after: .seconds(7)))
        #expect(
            UplinkAnswer.classify(.osmand, status: 429, retryAfter: "2", body: [])
                == .retry(reason: "HTTP 429", after: .seconds(2)))
    }
}
