import Foundation
import Testing

@testable import LocationState

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

    /// Milliseconds are truncated toward the past; years outside 0...9999 keep all their digits.
    @Test(arguments: [
        ("1969-12-31T23:59:59.999Z", -0.000_5), ("2024-02-29T23:59:59.999Z", 1_709_251_199.999_9),
        ("0000-03-01T00:00:00.000Z", -62_162_035_200), ("-0001-12-31T23:59:59.000Z", -62_167_219_201),
        ("10000-01-01T00:00:00.000Z", 253_402_300_800),
    ])
    func isoTimesRoundDownAndKeepLongYears(text: String, seconds: Double) {
        #expect(UTCCalendar.iso8601(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func parsesOffsetsAndRejectsGarbage() {
        #expect(UTCCalendar.parseISO8601("2024-03-05T13:00:00+01:00") == Date(timeIntervalSince1970: 1_709_640_000))
        #expect(UTCCalendar.parseISO8601("2024-03-05") == nil)
        #expect(UTCCalendar.parseISO8601("2024-13-05T13:00:00Z") == nil)
    }
}

struct LocationJSONEscapingTests {
    @Test func deviceNamesAreEscaped() throws {
        let fix = Location(mode: .twoD, lat: 1, lon: 2, source: .gpsd, device: "/dev/\"odd\\name\u{01}")
        #expect(fix.jsonString.contains(#""device":"/dev/\"odd\\name\u0001""#))
        let decoded = try JSONDecoder().decode(Location.self, from: Data(fix.jsonString.utf8))
        #expect(decoded.device == fix.device)
    }
}
