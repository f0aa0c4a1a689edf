import Foundation
import LocationTestSupport
import NIOCore
import Testing

@testable import LocationMQTT
@testable import LocationProviders
@testable import LocationState
@testable import LocationStores
@testable import locationd

/// The control socket's answers, as the lines a client reads.
@Suite(.timeLimit(.minutes(10)))
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
        let shown = ControlAnswers.ShownFix(current: nil, lastKnown: fix)
        let line = ControlAnswers.last(shown, now: Self.lastFix.addingTimeInterval(2.5))
        #expect(
            line == #"{"class":"TPV","mode":3,"time":"2025-11-22T12:00:00.123Z","lat":51.500000000,"#
                + #""lon":-0.125000000,"source":"gpsd","age":2.500,"state":"stale"}"#)
        #expect(
            ControlAnswers.last(ControlAnswers.ShownFix(current: nil, lastKnown: nil), now: Date())
                == #"{"class":"TPV","mode":0,"state":"none"}"#)
    }

    /// `/api/v1/last`'s body is `?LAST;`'s answer with `code` as its last member, for each
    /// state, also when the fix shown changes or keeps its value with another state (its
    /// bytes up to the age are kept for the fix, ``HTTPLastBody``).
    @Test func theHTTPBodyIsTheLastAnswerWithItsCode() {
        let first = Location(time: Self.lastFix, mode: .threeD, lat: 51.5, lon: -0.125, source: .gpsd)
        var second = first
        second.time = Self.lastFix.addingTimeInterval(1)
        second.lat = 51.6
        var restored = second
        restored.source = .restored
        let shown = Locked<ControlAnswers.ShownFix?>(nil)
        let bodies = HTTPLastBody(shown: { shown.withLock { $0 } })
        let now = Self.lastFix.addingTimeInterval(2.5)
        for (current, lastKnown, code) in [
            (first, nil, 0), (first, nil, 0), (nil, first, 3), (second, first, 0), (nil, restored, 3),
            (nil, nil, 4),
        ] as [(Location?, Location?, Int)] {
            let fix = ControlAnswers.ShownFix(current: current, lastKnown: lastKnown)
            shown.withLock { $0 = fix }
            let answer = ControlAnswers.last(fix, now: now)
            let expected = answer.dropLast() + #","code":\#(code)}"#
            #expect(String(buffer: bodies.body(now: now)) == expected)
        }
    }

    /// The `Encodable` encoding of the same members: the TPV's own, then age and state.
    private struct ReferenceAnswer: Encodable {
        let fix: Location
        let age: Double?
        let state: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Location.JSONKey.self)
            try fix.encodeTPV(into: &container)
            try container.encodeIfPresent(age.map { ($0 * 1000).rounded() / 1000 }, forKey: "age")
            try container.encode(state, forKey: "state")
        }
    }

    /// `?LAST;` is written by the byte writer; it must say what the `Encodable` encoding says.
    @Test func theLastAnswerIsItsEncodableEncoding() throws {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<2000 {
            func value(_ range: ClosedRange<Double>) -> Double? {
                random.next() % 4 == 0 ? nil : Double.random(in: range, using: &random)
            }
            let fix = Location(
                time: Date(
                    timeIntervalSince1970: Double(Int64.random(in: 0...4_000_000_000_000, using: &random)) / 1000),
                mode: random.next() % 2 == 0 ? .twoD : .threeD, lat: value(-90...90), lon: value(-180...180),
                altHAE: value(-400...9000), speed: value(0...300), track: value(0...360), eph: value(0...500),
                source: [.gpsd, .replay, .simulated, .restored][Int(random.next() % 4)])
            let age = [nil, 0, 2.5, 0.0005, 0.0015, 1234.5678, Double.random(in: 0...100_000, using: &random)][
                Int(random.next() % 7)]
            let state = ["live", "stale", "restored"][Int(random.next() % 3)]
            let written = ControlAnswers.tpv(fix, ageSeconds: age, state: state)
            let encoded = try JSONLineEncoder().encode(ReferenceAnswer(fix: fix, age: age, state: state))
            // The writer prints gpsd's fixed decimals (`51.500000000`), the encoder the
            // shortest form (`51.5`): the same members, in the same order, the same values.
            #expect(Self.keys(written) == Self.keys(encoded), "\(written)\n\(encoded)")
            let (ours, reference) = (try Self.object(written), try Self.object(encoded))
            for (key, value) in reference {
                if let number = value as? Double {
                    #expect(ours[key] as? Double == number, "\(key): \(written)\n\(encoded)")
                } else {
                    #expect(ours[key] as? String == value as? String, "\(key): \(written)\n\(encoded)")
                }
            }
            if Self.keys(written) != Self.keys(encoded) { return }
        }
    }

    private static func keys(_ line: String) -> [Substring] {
        line.split(separator: "\"").enumerated().compactMap { index, part in
            index % 2 == 1 && line.contains("\"\(part)\":") ? part : nil
        }.filter { !["TPV", "gpsd", "replay", "simulated", "restored", "live", "stale"].contains($0) }
    }

    private static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func repliesAreTheProtocolsObjects() {
        #expect(ControlReply.version == #"{"class":"VERSION","release":"locationd","proto_major":1,"proto_minor":2}"#)
        #expect(ControlReply.watch(enabled: false) == #"{"class":"WATCH","enable":false}"#)
        #expect(ControlReply.error("bad \"x\"\n") == #"{"class":"ERROR","message":"bad \"x\"\n"}"#)
    }
}
