import Foundation
import Testing

@testable import LocationState
@testable import locationd

/// The control socket's answers, as the lines a client reads.
struct ControlAnswersTests {
    static let lastFix = Date(timeIntervalSince1970: 1_763_812_800.123)

    @Test func statusCarriesTheLastFixTimeWithMilliseconds() {
        let line = ControlAnswers.status(.live(.gpsd, lastFix: Self.lastFix), fixes: 7, uptimeSeconds: 12.34)
        #expect(
            line == #"{"class":"STATUS","source":"gpsd","state":"live","connected":true,"fixes":7,"uptime":12.3,"#
                + #""lastFix":"2025-11-22T12:00:00.123Z"}"#)
    }

    @Test func statusOfALostSourceSaysWhyAndTheMQTTState() throws {
        let line = ControlAnswers.status(
            .lost(.gpsd, reason: "gpsd at \"localhost\" went away", lastFix: nil), fixes: 0, uptimeSeconds: 1,
            mqtt: MQTTPublisher.Snapshot(connected: false, queued: 3, dropped: 2))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["reason"] as? String == #"gpsd at "localhost" went away"#)
        #expect(object["lastFix"] == nil)
        let mqtt = try #require(object["mqtt"] as? [String: Any])
        #expect(mqtt["connected"] as? Bool == false && mqtt["queued"] as? Int == 3 && mqtt["dropped"] as? Int == 2)
        #expect(line.hasPrefix(#"{"class":"STATUS","#))
    }

    @Test func lastIsTheTPVObjectWithAgeAndStateAfterIt() {
        let fix = Location(time: Self.lastFix, mode: .threeD, lat: 51.5, lon: -0.125, source: .gpsd)
        let line = ControlAnswers.last(current: nil, lastKnown: fix, now: Self.lastFix.addingTimeInterval(2.5))
        #expect(
            line == #"{"class":"TPV","mode":3,"time":"2025-11-22T12:00:00.123Z","lat":51.5,"lon":-0.125,"#
                + #""source":"gpsd","age":2.5,"state":"stale"}"#)
        #expect(
            ControlAnswers.last(current: nil, lastKnown: nil, now: Date())
                == #"{"class":"TPV","mode":0,"state":"none"}"#)
    }

    @Test func repliesAreTheProtocolsObjects() {
        #expect(ControlReply.version == #"{"class":"VERSION","release":"locationd","proto_major":1,"proto_minor":0}"#)
        #expect(ControlReply.watch(enabled: false) == #"{"class":"WATCH","enable":false}"#)
        #expect(ControlReply.error("bad \"x\"\n") == #"{"class":"ERROR","message":"bad \"x\"\n"}"#)
    }
}
