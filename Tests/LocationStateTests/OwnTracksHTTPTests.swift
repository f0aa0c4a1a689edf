import Foundation
import Testing

@testable import LocationFormats
@testable import LocationState

/// What an OwnTracks message needs over HTTP beyond the MQTT payload, as the OwnTracks
/// Recorder (owntracks/recorder http.c), Traccar (OwnTracksProtocolDecoder.java), Dawarich
/// (app/services/own_tracks/params.rb) and Home Assistant (homeassistant/components/owntracks)
/// read it.
@Suite(.timeLimit(.minutes(10))) struct OwnTracksHTTPTests {
    private let fix = Location(
        time: Date(timeIntervalSince1970: 1_778_749_200), mode: .threeD, lat: 52.5, lon: 13.35, altMSL: 35.6,
        speed: 1.4, eph: 4.4, source: .gpsd)

    private func decode(_ bytes: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// The user and device in the headers the Recorder's `field()` reads before `?u=`/`?d=`
    /// (http.c lines 80-99) and Home Assistant's webhook uses without a topic
    /// (owntracks/__init__.py lines 173-180).
    @Test func headersNameTheUserAndTheDevice() throws {
        let identity = try #require(OwnTracksHTTPIdentity(user: "anna", device: "van"))
        #expect(identity.headerFields.map(\.name) == ["X-Limit-U", "X-Limit-D"])
        #expect(identity.headerFields.map(\.value) == ["anna", "van"])
        #expect(identity.topic == "owntracks/anna/van")
    }

    /// The topic goes into the JSON: Traccar names the device by `topic`, else `tid`
    /// (OwnTracksProtocolDecoder.java lines 54-59), Dawarich converts `vel` from km/h only
    /// when `topic` is present (params.rb lines 79-89).
    @Test func topicIsInTheJSON() throws {
        let identity = try #require(OwnTracksHTTPIdentity(user: "anna", device: "van"))
        let json = try decode(
            OwnTracksLocation(fix, trackerID: "an", createdAt: Date(timeIntervalSince1970: 0), topic: identity.topic)
                .payload)
        #expect(json["topic"] as? String == "owntracks/anna/van")
        #expect(json["_type"] as? String == "location")
        #expect(json["vel"] as? Int == 5)
    }

    /// Over MQTT the topic is the message's own, not a member of it.
    @Test func noTopicMemberWithoutATopic() throws {
        let json = try decode(OwnTracksLocation(fix, trackerID: "an", createdAt: Date()).payload)
        #expect(json["topic"] == nil)
    }

    /// Home Assistant ignores a location whose `acc` is 0 (owntracks/__init__.py lines
    /// 255-261): a fix better than half a metre is sent with `acc` 1.
    @Test func accuracyIsAtLeastOneMetre() throws {
        var fix = self.fix
        fix.eph = 0.3
        #expect(try decode(OwnTracksLocation(fix, trackerID: "an", createdAt: Date()).payload)["acc"] as? Int == 1)
        fix.eph = 0
        #expect(try decode(OwnTracksLocation(fix, trackerID: "an", createdAt: Date()).payload)["acc"] as? Int == 1)
    }

    /// A name a topic level or a header value cannot carry is refused: `/`, `+` and `#`
    /// would change the topic Home Assistant splits (messages.py lines 34-53), a control
    /// character would end the header.
    @Test func unusableNamesAreRefused() {
        for name in ["", "a/b", "a+b", "a#b", "a\nb", "a\rb", "é"] {
            #expect(OwnTracksHTTPIdentity(user: name, device: "van") == nil, "\(name)")
            #expect(OwnTracksHTTPIdentity(user: "anna", device: name) == nil, "\(name)")
        }
        #expect(OwnTracksHTTPIdentity(user: "Anna Lena", device: "van-1_x.y") != nil)
    }
}
