import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// The timeline's JSON lines and the thresholds' settings.
@Suite(.timeLimit(.minutes(10)))
struct MotionJSONTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let end = start.addingTimeInterval(754.5)

    /// MOTION, STAY and TRIP lines, member for member.
    @Test func lines() {
        #expect(Motion.unknown.jsonString == #"{"class":"MOTION","motion":"unknown"}"#)
        #expect(Motion.moving.jsonString == #"{"class":"MOTION","motion":"moving"}"#)
        #expect(
            Motion.stopped(since: Self.start, latitude: 47.37, longitude: 8.54).jsonString
                == #"{"class":"MOTION","motion":"stopped","since":"2026-11-18T11:06:40.000Z","lat":47.3700000,"lon":8.5400000}"#
        )
        let stay = Stay(start: Self.start, end: Self.end, latitude: 47.37, longitude: -8.54, radius: 3.25, fixes: 75)
        #expect(
            stay.jsonString
                == #"{"class":"STAY","start":"2026-11-18T11:06:40.000Z","end":"2026-11-18T11:19:14.500Z","lat":47.3700000,"lon":-8.5400000,"radius":3.3,"fixes":75}"#
        )
        var open = stay
        open.isOpen = true
        #expect(open.jsonString.hasSuffix(#","fixes":75,"open":true}"#))
        let trip = Trip(
            start: Self.start, end: Self.end, from: Self.start.addingTimeInterval(-3600), distance: 1509, maxSpeed: 4.5,
            fixes: 754)
        #expect(
            trip.jsonString
                == #"{"class":"TRIP","start":"2026-11-18T11:06:40.000Z","end":"2026-11-18T11:19:14.500Z","distance":1509.0,"duration":754.500,"avgSpeed":2.00,"maxSpeed":4.50,"fixes":754,"mode":"slow_mobility","from":"2026-11-18T10:06:40.000Z"}"#
        )
    }

    /// A motion stored before stops had names (the tracker's state in `timeline.sqlite`)
    /// reads back as the same stop without a name: an upgrade keeps the stay going on.
    @Test func aStopStoredWithoutANameReadsBack() throws {
        let stored = #"{"stopped":{"since":816000000,"latitude":47.37,"longitude":8.54}}"#
        let motion = try JSONDecoder().decode(Motion.self, from: Data(stored.utf8))
        #expect(
            motion
                == .stopped(since: Date(timeIntervalSinceReferenceDate: 816_000_000), latitude: 47.37, longitude: 8.54))
        let named = Motion.stopped(since: Self.start, latitude: 1, longitude: 2, name: "Home")
        #expect(try JSONDecoder().decode(Motion.self, from: JSONEncoder().encode(named)) == named)
    }

    /// A name of any length, made of what JSON escapes most (six bytes for one), is written
    /// whole into a stay, a trip and a motion: the lines are written into a buffer sized for
    /// them, which a long place name once overran.
    @Test(arguments: [1, 40, 200, 5_000])
    func namesOfAnyLengthAreWrittenWhole(length: Int) throws {
        let name = String(repeating: "\u{1}\"", count: length / 2) + "Zürich"
        var stay = Stay(
            start: Self.start, end: Self.end, latitude: -47.3712345, longitude: -178.5412345, radius: 1e9,
            fixes: Int.max)
        stay.name = name
        stay.place = Int.max
        stay.isOpen = true
        var trip = Trip(
            start: Self.start, end: Self.end, from: Self.start, distance: -1e300, maxSpeed: 1e300, fixes: Int.min)
        trip.to = Self.end
        trip.fromName = name
        trip.toName = name + name
        trip.isOpen = true
        let motion = Motion.stopped(since: Self.start, latitude: -89.1234567, longitude: -179.1234567, name: name)
        var drop: [UInt8] = []
        stay.appendDropJSON(to: &drop)
        for line in [stay.jsonString, trip.jsonString, motion.jsonString, String(decoding: drop, as: UTF8.self)] {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line.prefix(200))")
            let names = ["name", "from_name", "to_name"].compactMap { object[$0] as? String }
            #expect(names.contains(name), "\(line.prefix(200))")
        }
        #expect(
            TimelineEntry(jsonLine: trip.jsonString).flatMap { if case .trip(let t) = $0 { t.toName } else { nil } }
                == name + name)
    }

    /// Each threshold takes a number above 0 up to its limit; 0, negative, NaN, infinite
    /// and absurd values are refused with one line naming the key.
    @Test(arguments: ["stay-distance", "stay-duration", "stay-gap", "max-speed"])
    func settings(key: String) throws {
        var configuration = MotionConfiguration()
        #expect(try configuration.apply(key: key, value: "42", origin: "test"))
        #expect(
            [configuration.stayDistance, configuration.stayDuration, configuration.stayGap, configuration.maxSpeed]
                .contains(42))
        for bad in ["0", "-5", "nan", "NaN", "inf", "1e12", "", "ten"] {
            #expect(throws: LocationError.self) { try configuration.apply(key: key, value: bad, origin: "test") }
        }
        #expect(try !configuration.apply(key: "stay-elsewhere", value: "1", origin: "test"))
    }
}
