import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationMQTT
@testable import LocationProviders
@testable import LocationState

/// The one validation every fix passes before the state, and the writers that must not
/// trap on what gets past it anyway.
@Suite(.timeLimit(.minutes(10)))
struct FixValidationTests {
    static let t0 = Date(timeIntervalSince1970: 1_714_564_800)
    static let good = Location(
        time: t0, mode: .threeD, status: 2, lat: 52, lon: 13, altHAE: 140, altMSL: 100, speed: 3, track: 90,
        climb: -1, eph: 5, epv: 7, eps: 0.5, epc: 0.6, epx: 3, epy: 4, geoidSep: 40, satellitesUsed: 9, hdop: 0.9,
        source: .gpsd)

    /// A fix within every range comes out unchanged, with nothing dropped.
    @Test func aGoodFixPassesUnchanged() {
        let result = Self.good.validated()
        #expect(result.location == Self.good)
        #expect(result.rejection == nil)
        #expect(result.dropped.isEmpty)
    }

    /// An impossible position, mode or time rejects the whole fix, naming the field.
    @Test(arguments: [
        (Location(time: t0, mode: .threeD, lat: 1e308, lon: 1e308, source: .replay), "lat"),
        (Location(time: t0, mode: .threeD, lat: 52, lon: 180.5, source: .replay), "lon"),
        (Location(time: t0, mode: .threeD, lat: -90.0001, lon: 0, source: .replay), "lat"),
        (Location(time: t0, mode: .threeD, lat: .nan, lon: 0, source: .replay), "lat"),
        (Location(time: t0, mode: .noFix, lat: 52, lon: 13, source: .replay), "mode"),
        (Location(time: t0, mode: .twoD, lat: 52, source: .replay), "lat"),
    ])
    func anImpossibleFixIsRejected(_ fix: Location, _ field: String) {
        let result = fix.validated()
        #expect(result.location == nil)
        #expect(result.rejection?.field == field)
    }

    /// A time outside the years 1970 to 9999 rejects the fix (a Date of such a time is not
    /// even described by Foundation without a trap: the arguments are seconds).
    @Test(arguments: [1e19, 9.3e18, 1e308, -1e308, -1, .nan, 253_402_300_800])
    func aFixOutsideTheYearsIsRejected(_ seconds: Double) {
        let fix = Location(time: Date(timeIntervalSince1970: seconds), mode: .threeD, lat: 52, lon: 13, source: .replay)
        let result = fix.validated()
        #expect(result.location == nil)
        #expect(result.rejection?.field == "time")
    }

    /// A number outside its range removes that field only; the rest of the fix is kept.
    @Test(
        arguments: [
            ("altMSL", 99_999_999), ("altHAE", -1e308), ("geoidSep", 500), ("speed", -4), ("speed", .infinity),
            ("climb", 1e6), ("track", 720), ("eph", 1e300), ("epv", -1), ("hdop", .nan), ("satellitesUsed", -3),
            ("status", 99),
        ] as [(String, Double)])
    func anImpossibleFieldIsDropped(_ field: String, _ value: Double) throws {
        var fix = Self.good
        var expected = Self.good
        switch field {
        case "altMSL": (fix.altMSL, expected.altMSL) = (value, nil)
        case "altHAE": (fix.altHAE, expected.altHAE) = (value, nil)
        case "geoidSep": (fix.geoidSep, expected.geoidSep) = (value, nil)
        case "speed": (fix.speed, expected.speed) = (value, nil)
        case "climb": (fix.climb, expected.climb) = (value, nil)
        case "track": (fix.track, expected.track) = (value, nil)
        case "eph": (fix.eph, expected.eph) = (value, nil)
        case "epv": (fix.epv, expected.epv) = (value, nil)
        case "hdop": (fix.hdop, expected.hdop) = (value, nil)
        case "satellitesUsed": (fix.satellitesUsed, expected.satellitesUsed) = (Int(value), nil)
        default: (fix.status, expected.status) = (Int(value), nil)
        }
        let result = fix.validated()
        #expect(result.dropped.map(\.field) == [field])
        #expect(try #require(result.location) == expected)
    }

    /// The ISO 8601 writer every output shares writes any date, clamped to four-digit years.
    @Test(arguments: [
        (1e19, "9999-12-31T23:59:59.99"), (9.3e18, "9999-12-31T23:59:59.99"), (1e308, "9999-12-31T23:59:59.99"),
        (-1e308, "0000-01-01T00:00:00.000Z"), (Double.nan, "0000-01-01T00:00:00.000Z"),
        (-Double.infinity, "0000-01-01T00:00:00.000Z"), (0, "1970-01-01T00:00:00.000Z"),
    ])
    func theISO8601WriterIsTotal(_ seconds: Double, _ prefix: String) {
        let text = UTCCalendar.iso8601(Date(timeIntervalSince1970: seconds))
        #expect(text.hasPrefix(prefix))
        #expect(text.utf8.count == 24)
    }

    /// The other writers of times and numbers take any double without trapping.
    @Test func theWritersAreTotal() {
        var fix = Location(
            time: Date(timeIntervalSince1970: 1e19), mode: .threeD, lat: 1e308, lon: -1e308, altMSL: 1e308,
            speed: 1e308, track: 1e308, eph: 1e308, epv: -1e308, source: .replay)
        var json: [UInt8] = []
        fix.appendJSON(to: &json)
        #expect(String(decoding: json, as: UTF8.self).contains(#""time":"9999-12-31T23:59:59.99"#))
        var nmea: [UInt8] = []
        NMEAWriter().append(fix, to: &nmea)
        #expect(!nmea.isEmpty)
        fix.time = Date(timeIntervalSince1970: -1e308)
        // No `tst` can be written for it, and OwnTracks requires one.
        #expect(OwnTracksLocation(fix, trackerID: "lt", createdAt: Date(timeIntervalSince1970: 1e300)).payload == nil)
        let status = MQTTStatusMessage.payload(.live(.replay, lastFix: fix.time), at: Date(timeIntervalSince1970: .nan))
        #expect(!status.isEmpty)
    }

    /// gpsd JSON: a time out of range (number or string) is malformed where it enters.
    @Test(arguments: ["1e19", "9.3e18", "1e308", "-1e308", "-1e12"])
    func aGPSDJSONTimeOutOfRangeIsMalformed(_ time: String) {
        var decoder = GPSDJSONDecoder()
        var events: [FixReport] = []
        let line = #"{"class":"TPV","mode":3,"time":\#(time),"lat":52,"lon":13}"# + "\n"
        Array(line.utf8).withUnsafeBytes { decoder.decode($0) { events.append($0) } }
        decoder.finish { events.append($0) }
        #expect(events.isEmpty)
        #expect(decoder.statistics[skipped: .malformed] == 1)
    }

    /// The coordinator validates every fix before the state, and counts what it did.
    @Test func theCoordinatorRejectsAndTrimsBeforeTheState() async throws {
        // A day: the freshness timer runs on the real clock, and a loaded machine has taken over a
        // minute to run this test (the fix then went stale, and `nil` followed it).
        let coordinator = LocationCoordinator(freshnessTimeout: .seconds(86_400), now: { Self.t0 })
        let locations = Recorder<Location?>()
        coordinator.deviceLocation.addListener(locations)
        coordinator.receive(.connected)
        coordinator.receive(.fix(Location(time: Self.t0, mode: .threeD, lat: 1e308, lon: 1e308, source: .replay)))
        var absurd = Self.good
        absurd.altMSL = 99_999_999
        coordinator.receive(.fix(absurd))
        try await locations.wait(forCount: 1)
        var expected = Self.good
        expected.altMSL = nil
        #expect(locations.changes.map(\.new) == [expected])
        #expect(coordinator.validationCounts.rejected == ["lat": 1])
        #expect(coordinator.validationCounts.dropped == ["altMSL": 1])
        #expect(coordinator.validationCounts.summary == "1 impossible fix rejected (lat 1), 1 field dropped (altMSL 1)")
    }

    /// A fix restored from disk goes through the same validation.
    @Test func aRestoredFixIsValidatedToo() {
        let coordinator = LocationCoordinator(freshnessTimeout: .seconds(60), now: { Self.t0 })
        var stored = Self.good
        stored.source = .restored
        stored.speed = -1
        coordinator.restore(stored)
        #expect(coordinator.validationCounts.dropped == ["speed": 1])
        coordinator.restore(Location(time: Self.t0, mode: .threeD, lat: 91, lon: 0, source: .restored))
        #expect(coordinator.validationCounts.rejected == ["lat": 1])
    }

    /// A GPX point with an absurd elevation keeps its position and loses the elevation.
    @Test func aGPXElevationOutOfRangeIsDropped() async throws {
        let gpx = """
            <?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52" lon="13"><ele>1e300</ele><time>2024-05-01T12:00:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        var decoder = GPXDecoder()
        var fixes: [Location] = []
        Array(gpx.utf8).withUnsafeBytes { decoder.decode($0) { if case .fix(let l) = $0 { fixes.append(l) } } }
        decoder.finish { if case .fix(let l) = $0 { fixes.append(l) } }
        let fix = try #require(fixes.first)
        let result = fix.validated()
        #expect(result.location?.altMSL == nil)
        #expect(result.location?.lat == 52)
        #expect(result.dropped.map(\.field) == ["altMSL"])
    }

    /// The simulator's fixes pass the validation untouched.
    @Test func simulatedFixesPass() {
        var route = SimulatedRoute(seed: 7, start: Self.t0)
        for _ in 0..<500 {
            let fix = route.next()
            let result = fix.validated()
            #expect(result.rejection == nil && result.dropped.isEmpty, "\(fix)")
        }
    }
}
