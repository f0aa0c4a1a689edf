import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct LocationJSONTests {
    static let full = Location(
        time: Date(timeIntervalSince1970: 1_709_640_000.25), mode: .threeD, status: 2, lat: -33.868_8, lon: 151.209_3,
        altHAE: 64.5, altMSL: 25, speed: 20.125, track: 200.5, climb: -0.25, eph: 4.2, epv: 7.5, eps: 0.3, epc: 0.6,
        epx: 2.5, epy: 3.25, geoidSep: 39.5, satellitesUsed: 9, hdop: 0.9, source: .replay, device: "/dev/ttyUSB0")

    @Test func encodesGpsdNamesInOrderWithClassFirst() {
        #expect(
            LocationJSONTests.full.jsonString
                == #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2024-03-05T12:00:00.250Z","#
                + #""lat":-33.868800000,"lon":151.209300000,"altHAE":64.500,"altMSL":25.000,"epx":2.500,"#
                + #""epy":3.250,"epv":7.500,"track":200.5000,"speed":20.125,"climb":-0.250,"eps":0.300,"epc":0.600,"#
                + #""eph":4.200,"status":2,"geoidSep":39.500,"satellitesUsed":9,"hdop":0.90,"source":"replay"}"#)
    }

    @Test func absentValuesAreLeftOut() {
        let sparse = Location(mode: .noFix, source: .simulated)
        #expect(sparse.jsonString == #"{"class":"TPV","mode":1,"source":"simulated"}"#)
        var nan = sparse
        nan.speed = .nan
        #expect(nan.jsonString == sparse.jsonString)
    }

    @Test func decodesWhatItEncodes() throws {
        let decoded = try JSONDecoder().decode(Location.self, from: Data(LocationJSONTests.full.jsonString.utf8))
        #expect(decoded == LocationJSONTests.full)
    }

    @Test func codableRoundTrip() throws {
        let data = try JSONEncoder().encode(LocationJSONTests.full)
        #expect(try JSONDecoder().decode(Location.self, from: data) == LocationJSONTests.full)
    }

    @Test func decodesGpsdTPVWithOlderAltAndNoSource() throws {
        let line =
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2010-08-21T08:37:23.000Z","ept":0.005,"#
            + #""lat":51.925907,"lon":4.5776455,"alt":-4.0,"magvar":1.4,"speed":0.109}"#
        let fix = try JSONDecoder().decode(Location.self, from: Data(line.utf8))
        #expect(fix.altMSL == -4 && fix.source == .gpsd && fix.device == "/dev/ttyACM0")
        #expect(fix.time == Date(timeIntervalSince1970: 1_282_379_843))
    }

    @Test func rejectsOtherClassesAndBadTimes() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Location.self, from: Data(#"{"class":"SKY"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Location.self, from: Data(#"{"class":"TPV","time":"yesterday"}"#.utf8))
        }
    }

    @Test(arguments: [
        (0.0, 3, "0.000"), (-0.0004, 3, "0.000"), (-0.0005, 3, "-0.001"), (1.0005, 3, "1.001"),
        (179.999_999_999_5, 9, "180.000000000"),
        (-4, 0, "-4"), (1e20, 3, "1e+20"),
    ])
    func decimals(value: Double, decimals: Int, text: String) {
        var bytes: [UInt8] = []
        DecimalFormatting.append(value, decimals: decimals, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }

    /// `DecimalFormatting.append` against plain arithmetic: the product with 10^decimals
    /// rounded half away from zero, split at the decimal point; beyond 9e15, Swift's
    /// shortest representation.
    @Test func decimalsMatchPlainArithmetic() {
        func expected(_ value: Double, _ decimals: Int) -> String {
            guard value.isFinite else { return "null" }
            let scale = (0..<decimals).reduce(1 as Int64) { power, _ in power * 10 }
            let product = abs(value) * Double(scale)
            let units = product.rounded(.toNearestOrAwayFromZero)
            guard product < 9.1e15, units < 9e15 else { return "\(value)" }
            let whole = Int64(units) / scale
            let fraction = String(Int64(units) % scale)
            let sign = value < 0 && units != 0 ? "-" : ""
            guard decimals > 0 else { return sign + String(whole) }
            return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        var random = SplitMix64(seed: 0xDEC1_3A15)
        var mismatches: [String] = []
        for round in 0..<40_000 {
            let decimals = round % 13
            let scale = (0..<decimals).reduce(1.0) { power, _ in power * 10 }
            let tie = (Double(Int64.random(in: -2_000_000_000...2_000_000_000, using: &random)) + 0.5) / scale
            let values = [
                Double(bitPattern: random.next()), Double.random(in: -360...360, using: &random),
                Double.random(in: -1...1, using: &random), tie, tie.nextUp, tie.nextDown,
                9e15 / scale * Double.random(in: 0.999...1.012, using: &random),
            ]
            for value in values + values.map(-) {
                var bytes: [UInt8] = []
                DecimalFormatting.append(value, decimals: decimals, to: &bytes)
                let text = String(decoding: bytes, as: UTF8.self)
                if text != expected(value, decimals) { mismatches.append("\(value) \(decimals): \(text)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", 0.0), ("2024-02-29T23:59:59.999Z", 1_709_251_199.999),
        ("1969-12-31T23:59:59.000Z", -1.0),
    ])
    func isoTimes(text: String, seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(UTCCalendar.iso8601(date) == text)
        #expect(abs(try #require(UTCCalendar.parseISO8601(text)).timeIntervalSince1970 - seconds) < 1e-6)
    }

    /// Milliseconds are truncated toward the past; years outside 0...9999 are clamped to them.
    @Test(arguments: [
        ("1969-12-31T23:59:59.999Z", -0.000_5), ("2024-02-29T23:59:59.999Z", 1_709_251_199.999_9),
        ("0000-03-01T00:00:00.000Z", -62_162_035_200), ("0000-01-01T00:00:00.000Z", -62_167_219_201),
        ("9999-12-31T23:59:59.999Z", 253_402_300_800),
    ])
    func isoTimesRoundDownAndClampLongYears(text: String, seconds: Double) {
        #expect(UTCCalendar.iso8601(Date(timeIntervalSince1970: seconds)) == text)
    }

    /// A whole millisecond a Double cannot hold exactly is written as itself, not one less:
    /// every millisecond of a second in 2004 and in 2039, where a quarter of them are stored
    /// a little below (03:29:55.376 as .37599992...), made as the NMEA decoder makes them and
    /// read from text as GPX and gpsd JSON are.
    @Test(arguments: [1_091_849_395, 2_196_488_395])
    func wholeMillisecondsAreWrittenAsThemselves(second: Int) throws {
        for millisecond in 0..<1000 {
            let date = Date(timeIntervalSince1970: Double(second) + Double(millisecond) / 1000)
            let text = UTCCalendar.iso8601(date)
            #expect(text.hasSuffix(String(format: ".%03dZ", millisecond)), "\(text)")
            #expect(UTCCalendar.iso8601(try #require(UTCCalendar.parseISO8601(text))) == text)
        }
    }

    @Test func parsesOffsetsAndRejectsGarbage() {
        #expect(UTCCalendar.parseISO8601("2024-03-05T13:00:00+01:00") == Date(timeIntervalSince1970: 1_709_640_000))
        #expect(UTCCalendar.parseISO8601("2024-03-05") == nil)
        #expect(UTCCalendar.parseISO8601("2024-13-05T13:00:00Z") == nil)
    }

    /// The offsets ISO 8601 and gpxpy read (`+hh:mm`, `+hhmm`, `+hh`), RFC 3339's lower-case
    /// `t` and `z`; nothing else after the time, and no day the calendar lacks.
    @Test(arguments: [
        ("2024-03-05T13:00:00+01:00", 1_709_640_000.0), ("2024-03-05T13:00:00+0100", 1_709_640_000),
        ("2024-03-05T13:00:00+01", 1_709_640_000), ("2024-03-05T06:30:00-05:30", 1_709_640_000),
        ("2024-03-05T06:30:00-0530", 1_709_640_000), ("2024-03-05t12:00:00z", 1_709_640_000),
        ("2024-02-29T12:00:00Z", 1_709_208_000), ("2000-02-29T00:00:00Z", 951_782_400),
    ])
    func readsTheOffsetsISO8601Allows(text: String, seconds: Double) {
        #expect(UTCCalendar.parseISO8601(text) == Date(timeIntervalSince1970: seconds), "\(text)")
    }

    @Test(arguments: [
        "2024-03-05T13:00:00+01x00", "2024-03-05T13:00:00+1", "2024-03-05T13:00:00+010", "2024-03-05T13:00:00+01:0",
        "2024-03-05T13:00:00+24:00", "2024-03-05T13:00:00+01:60", "2024-03-05T13:00:00+01:00Z", "2024-03-05T13:00:00ZZ",
        "2023-02-29T12:00:00Z", "1900-02-29T12:00:00Z", "2024-04-31T12:00:00Z", "2024-03-00T12:00:00Z",
    ])
    func refusesWhatIsNotATime(text: String) {
        #expect(UTCCalendar.parseISO8601(text) == nil, "\(text)")
    }
}

@Suite(.timeLimit(.minutes(10)))
struct LocationJSONEscapingTests {
    @Test func deviceNamesAreEscaped() throws {
        let fix = Location(mode: .twoD, lat: 1, lon: 2, source: .gpsd, device: "/dev/\"odd\\name\u{01}")
        #expect(fix.jsonString.contains(#""device":"/dev/\"odd\\name\u0001""#))
        let decoded = try JSONDecoder().decode(Location.self, from: Data(fix.jsonString.utf8))
        #expect(decoded.device == fix.device)
    }
}

/// The two TPV encoders, the byte writer (`jsonString`, every `?WATCH;` line and the
/// replay output) and `Codable` (`?LAST;` through ``JSONLineEncoder``, the stored last fix
/// through `JSONEncoder`), hold each other to the same output: the same keys in the same
/// order and the same numbers, non-finite ones left out by both.
@Suite(.timeLimit(.minutes(10)))
struct TPVEncodersAgreeTests {
    /// A fix with each field present or not, and numbers of every magnitude, ties,
    /// negative zero and non-finite values among them.
    static func generatedFix(_ random: inout SplitMix64) -> Location {
        func number() -> Double? {
            switch random.next() % 10 {
            case 0: return nil
            case 1: return [Double.nan, .infinity, -.infinity, -0.0][Int(random.next() % 4)]
            case 2: return Double(bitPattern: random.next())
            case 3: return (Double(Int64.random(in: -9_000_000...9_000_000, using: &random)) + 0.5) / 1000
            default: return Double.random(in: -400...400, using: &random)
            }
        }
        func integer() -> Int? { random.next() % 3 == 0 ? nil : Int.random(in: -5...40, using: &random) }
        let devices: [String?] = [nil, "/dev/ttyUSB0", "odd \"name\"\\\n\u{1}\u{1F}é"]
        return Location(
            time: random.next() % 4 == 0
                ? nil : Date(timeIntervalSince1970: Double.random(in: -1e9...4e9, using: &random)),
            mode: FixMode(rawValue: Int(random.next() % 4)) ?? .unknown, status: integer(), lat: number(),
            lon: number(), altHAE: number(), altMSL: number(), speed: number(), track: number(), climb: number(),
            eph: number(), epv: number(), eps: number(), epc: number(), epx: number(), epy: number(),
            geoidSep: number(), satellitesUsed: integer(), hdop: number(),
            source: [FixSource.gpsd, .replay, .simulated, .restored][Int(random.next() % 4)],
            device: devices[Int(random.next() % 3)])
    }

    /// The members of a JSON object in their order, each value as parsed.
    static func members(_ json: String) throws -> [(key: String, value: String)] {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) as? [String: Any])
        // The key order, from the text: each key is a string followed by a colon at depth 1.
        var order: [String] = []
        var scanner = json.unicodeScalars.makeIterator()
        var depth = 0
        var inString = false
        var current = ""
        var escaped = false
        var last = ""
        while let scalar = scanner.next() {
            if inString {
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                    last = current
                    continue
                }
                current.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\"":
                inString = true
                current = ""
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            case ":" where depth == 1: order.append(last)
            default: break
            }
        }
        // Numbers as the Doubles they parse to, so that `1.000` and `1` compare equal.
        return order.map { key in (key, (object[key] as? Double).map { "\($0)" } ?? "\(object[key]!)") }
    }

    @Test func writerAndCodableGiveTheSameMembersOverGeneratedFixes() throws {
        var random = SplitMix64(seed: 0x7_9F5)
        var compared = 0
        for _ in 0..<5_000 {
            let fix = Self.generatedFix(&random)
            let written = fix.jsonString
            let encoded = try JSONLineEncoder().encode(fix)
            let writtenMembers = try Self.members(written)
            let encodedMembers = try Self.members(encoded)
            #expect(writtenMembers.map(\.key) == encodedMembers.map(\.key), "\(written)\n\(encoded)")
            for (mine, theirs) in zip(writtenMembers, encodedMembers) where mine.key == theirs.key {
                #expect(mine.value == theirs.value, "\(mine.key): \(written)\n\(encoded)")
            }
            // Decoded back, both give the same fix.
            let fromWriter = try JSONDecoder().decode(Location.self, from: Data(written.utf8))
            let fromCodable = try JSONDecoder().decode(Location.self, from: Data(encoded.utf8))
            let fromFoundation = try JSONDecoder().decode(Location.self, from: JSONEncoder().encode(fix))
            #expect(fromWriter == fromCodable && fromCodable == fromFoundation, "\(written)\n\(encoded)")
            compared += 1
        }
        #expect(compared == 5_000)
    }

    @Test func nonFiniteNumbersAreLeftOutByBoth() throws {
        let fix = Location(mode: .threeD, lat: .nan, lon: .infinity, altHAE: -.infinity, speed: 1, source: .gpsd)
        let foundation = String(decoding: try JSONEncoder().encode(fix), as: UTF8.self)
        for json in [fix.jsonString, try JSONLineEncoder().encode(fix), foundation] {
            #expect(!json.contains("lat") && !json.contains("lon") && !json.contains("altHAE"), "\(json)")
            #expect(json.contains(#""speed":1"#), "\(json)")
        }
    }
}
