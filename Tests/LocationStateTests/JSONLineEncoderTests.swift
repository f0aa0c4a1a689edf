import Foundation
import LocationProviders
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationTimeline

/// `JSONLineEncoder` writes JSON as the value encodes it: members in that order, what
/// Foundation's `JSONEncoder` would write (read back, the same values), and the cases a
/// streamed writer has to get right (values that write nothing, super-encoders, containers
/// kept and used out of order).
@Suite struct JSONLineEncoderTests {
    private struct Everything: Encodable {
        enum Kind: String, Encodable { case car, bike }
        struct Inner: Encodable {
            var name = "in \"quotes\"\n"
            var values: [Double?] = [1, nil, 0.25, -3e-7]
        }

        var `class` = "EVERY"
        var flag = true
        var integer = -42
        var small: Int8 = -8
        var big: UInt64 = .max
        var float: Float = 0.5
        var whole = 2.0
        var large = 1e15
        var fraction = 47.378_196_368
        var tiny = Double.leastNonzeroMagnitude
        var absent: Double?
        var present: Double? = 0
        var kind = Kind.bike
        var inner = Inner()
        var list = [Inner(), Inner(name: "", values: [])]
        var nested: [[Int]] = [[], [1, 2], [3]]
        var map = ["a": 1]
        var date = Date(timeIntervalSince1970: 1.5)
        var motion = Motion.stopped(since: Date(timeIntervalSince1970: 3), latitude: 1, longitude: 2, name: "Home")
    }

    @Test func membersGoOutInTheOrderTheValueEncodesThem() throws {
        let text = try JSONLineEncoder().encode(Everything())
        #expect(text.hasPrefix(#"{"class":"EVERY","flag":true,"integer":-42,"small":-8,"big":18446744073709551615,"#))
        #expect(text.contains(#""float":0.5,"whole":2,"large":1000000000000000.0,"#))
        #expect(text.contains(#""fraction":47.378196368,"tiny":5e-324,"present":0,"kind":"bike","#))
        let inner = #"{"name":"in \"quotes\"\n","values":[1,null,0.25,-3e-07]}"#
        #expect(text.contains(#""inner":\#(inner),"list":[\#(inner),{"name":"","values":[]}],"#))
        #expect(text.contains(#""nested":[[],[1,2],[3]],"map":{"a":1},"#))
        #expect(!text.contains("absent"))
        #expect(!text.contains("\n"))
    }

    /// Read back, the JSON holds what Foundation's `JSONEncoder` writes for the same value.
    @Test func whatItWritesIsWhatFoundationWrites() throws {
        var tracker = MotionTracker()
        var random = SplitMix64(seed: 3)
        var latitude = 47.3782
        var time = Date(timeIntervalSince1970: 1_789_455_000)
        for (seconds, speed) in [(400, 0.0), (120, 12.0), (400, 0.0), (60, 12.0)] {
            for _ in 0..<seconds {
                time.addTimeInterval(1)
                latitude += speed / 111_195 + random.uniform(in: -2e-6..<2e-6)
                _ = tracker.ingest(
                    Location(time: time, mode: .threeD, lat: latitude, lon: 8.54, speed: speed, source: .gpsd))
            }
        }
        let fix = Location(
            time: time, mode: .threeD, status: 2, lat: 47.5, lon: -8.25, altHAE: 400.5, speed: 1.5, eph: 3,
            satellitesUsed: 9, hdop: 0.9, source: .gpsd, device: "/dev/tty\"USB0\"")
        func same(_ value: some Encodable) throws {
            let ours = try JSONSerialization.jsonObject(with: Data(try JSONLineEncoder().encode(value).utf8))
            let theirs = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value))
            #expect((ours as? NSObject) == (theirs as? NSObject), "\(value)")
        }
        try same(tracker)
        try same(fix)
        try same(Everything())
        try same(tracker.openTrip)
        try same([tracker.closingStay, tracker.openStay])
    }

    private struct Silent: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    /// Writes members through `superEncoder(forKey:)` (the first left unused), the keyed
    /// `superEncoder()` (into the same object), a nested container and an unkeyed count.
    private struct Supers: Encodable {
        enum Key: String, CodingKey { case a, unused, b, c, d }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(1, forKey: .a)
            _ = container.superEncoder(forKey: .unused)
            var b = container.superEncoder(forKey: .b).singleValueContainer()
            try b.encode("two")
            var shared = container.superEncoder().container(keyedBy: Key.self)
            try shared.encode(3, forKey: .c)
            var list = container.nestedUnkeyedContainer(forKey: .d)
            try list.encode(list.count)
            try list.encode(list.count)
            try list.encodeNil()
        }
    }

    @Test func valuesThatWriteNothingAreNull() throws {
        #expect(try JSONLineEncoder().encode(Silent()) == "null")
        #expect(try JSONLineEncoder().encode([Silent(), Silent()]) == "[null,null]")
        #expect(try JSONLineEncoder().encode(Supers()) == #"{"a":1,"unused":null,"b":"two","c":3,"d":[0,1,null]}"#)
    }

    /// A nested container kept and written to after a later member began: an error, not
    /// JSON out of order.
    private struct OutOfOrder: Encodable {
        enum Key: String, CodingKey { case first, second }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            var first = container.nestedContainer(keyedBy: Key.self, forKey: .first)
            try container.encode(2, forKey: .second)
            try first.encode(1, forKey: .first)
        }
    }

    private struct TwoValues: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode(2)
        }
    }

    @Test func whatCannotBeWrittenInOrderIsAnError() throws {
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(OutOfOrder()) }
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(TwoValues()) }
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(["x": Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode([Float.infinity]) }
    }
}
