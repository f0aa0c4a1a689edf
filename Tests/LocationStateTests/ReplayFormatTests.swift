import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

/// Decodes `text` with `decoder` in one chunk and returns the events.
func decodeAll(_ text: String, with decoder: some ReplayDecoding) -> ([ProviderEvent], ReplayStatistics) {
    var decoder = decoder
    var events: [ProviderEvent] = []
    Array(text.utf8).withUnsafeBytes { decoder.decode($0) { events.append(ProviderEvent($0)) } }
    decoder.finish { events.append(ProviderEvent($0)) }
    return (events, decoder.statistics)
}

@Suite(.timeLimit(.minutes(10)))
struct ReplayFormatTests {
    @Test func gpxRoundTrip() async throws {
        let walk = fixes(try await replay(Repository.sampleTrack("walk.nmea")).0)
        var document = Array(Location.gpxHeader.utf8)
        for fix in walk { fix.appendGPXTrackPoint(to: &document) }
        document += Array(Location.gpxFooter.utf8)
        let (events, statistics) = decodeAll(String(decoding: document, as: UTF8.self), with: GPXDecoder())
        let back = fixes(events)
        #expect(back.count == walk.count)
        #expect(statistics.records == walk.count)
        for (original, copy) in zip(walk, back) {
            #expect(copy.time == original.time)
            #expect(abs(copy.lat! - original.lat!) < 1e-9 && abs(copy.lon! - original.lon!) < 1e-9)
            #expect(abs(copy.altMSL! - original.altMSL!) < 1e-3)
            #expect(abs(copy.speed! - original.speed!) < 1e-3 && abs(copy.track! - original.track!) < 1e-4)
            #expect(copy.mode == .threeD && copy.satellitesUsed == original.satellitesUsed)
        }
    }

    @Test func gpxFromOtherToolsWithPrefixesAndSingleQuotes() {
        let text = """
            <?xml version="1.0"?><gpx:gpx version="1.1"><gpx:trk><gpx:trkseg>
            <gpx:trkpt lon='-0.1275' lat='51.507'><gpx:ele>11</gpx:ele><gpx:time>2024-01-01T00:00:00Z</gpx:time></gpx:trkpt>
            <gpx:trkpt lat="91" lon="0"></gpx:trkpt>
            <gpx:trkpt lat="1" lon="2"><gpx:fix>none</gpx:fix></gpx:trkpt>
            <gpx:trkpt lat="1.5" lon="2.5"/>
            </gpx:trkseg></gpx:trk></gpx:gpx>
            """
        let (events, statistics) = decodeAll(text, with: GPXDecoder())
        let located = fixes(events)
        #expect(located.count == 2)
        #expect(located[0].lat == 51.507 && located[0].lon == -0.1275 && located[0].altMSL == 11)
        #expect(located[0].time == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(located[1].mode == .twoD && located[1].lat == 1.5)
        #expect(statistics[skipped: .malformed] == 1)
        #expect(events.contains(.noFix(nil)))
    }

    @Test func gpsdJSONFoldsTPVsOfOneEpoch() {
        let text = """
            {"class":"VERSION","release":"3.22"}
            {"class":"TPV","mode":2,"time":"2010-08-21T08:37:23.000Z","lat":51.9,"lon":4.5}
            {"class":"TPV","mode":3,"time":"2010-08-21T08:37:23.000Z","lat":51.9,"lon":4.5,"altMSL":-4.0}
            {"class":"SKY","hdop":2.5}
            {"class":"TPV","mode":1,"time":"2010-08-21T08:37:24.000Z"}
            {"class":"TPV","mode":3,"time":"2010-08-21T08:37:25.000Z","lat":51.8,"lon":4.6,"alt":2.0}
            not json
            {"class":"TPV","mode":3,"time":"
            """
        let (events, statistics) = decodeAll(text, with: GPSDJSONDecoder())
        let located = fixes(events)
        #expect(located.count == 2)
        #expect(located[0].altMSL == -4 && located[0].source == .replay)
        #expect(located[1].altMSL == 2)
        #expect(events.count == 3)
        #expect(statistics[skipped: .unknown] == 2)
        #expect(statistics[skipped: .malformed] == 1)
        #expect(statistics[skipped: .droppedLine] == 1)
        #expect(statistics.fixes == 2)
    }

    @Test func nmeaWriterRoundTrip() throws {
        let original = Location(
            time: Date(timeIntervalSince1970: 1_709_640_000.125), mode: .threeD, status: 2, lat: -33.868_812_345,
            lon: -151.209_354_321, altMSL: 25.125, speed: 20.5, track: 200.25, geoidSep: 39.5, satellitesUsed: 9,
            hdop: 0.9, source: .replay)
        let writer = NMEAWriter(talker: "GN")
        var text = ""
        for offset in 0..<3 {
            var fix = original
            fix.time = original.time!.addingTimeInterval(Double(offset))
            text += writer.text(for: fix)
        }
        #expect(text.hasPrefix("$GNGGA,120000.125,3352.1287407,S,15112.5612593,W,2,09,0.90,25.125,M,39.500,M,,*"))
        let back = fixes(decodeNMEA(text).0)
        #expect(back.count == 3)
        let copy = try #require(back.first)
        #expect(copy.time == original.time)
        #expect(abs(copy.lat! - original.lat!) < 1e-9 && abs(copy.lon! - original.lon!) < 1e-9)
        #expect(copy.altMSL == 25.125 && copy.geoidSep == 39.5 && copy.status == 2)
        #expect(abs(copy.speed! - 20.5) < 1e-4 && copy.track == 200.25)
        #expect(copy.satellitesUsed == 9 && copy.hdop == 0.9 && copy.mode == .threeD)
    }

    @Test func nmeaWriterNoFixAndMissingSatellites() {
        var bytes: [UInt8] = []
        let writer = NMEAWriter()
        let time = Date(timeIntervalSince1970: 1_709_640_000)
        writer.appendNoFix(at: time, to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("$GPRMC,120000.000,V,,,,,,,050324,,,N*"))
        let twoD = Location(time: time, mode: .twoD, lat: 1, lon: 2, source: .replay)
        #expect(writer.text(for: twoD).contains(",1,03,,,M,,M,,*"))
        #expect(writer.text(for: Location(mode: .noFix, source: .replay)).isEmpty)
    }

    /// The summary speaks of each format's own records: sentences, reports, track points.
    @Test func summaryUsesEachFormatsWords() {
        let (_, nmea) = decodeAll(
            "$GPGGA,090000.000,5230.8700000,N,01321.0060000,E,1,08,0.90,35.000,M,40.500,M,,*5F\n$GPXXX,1*00\n",
            with: ReplayFormat.nmea.makeDecoder())
        #expect(nmea.summary == "1 sentence read, 1 fix, 1 bad checksum, 0 unknown sentences, 0 lines dropped")
        let (_, json) = decodeAll(
            #"{"class":"VERSION"}"# + "\n" + #"{"class":"TPV","mode":2,"lat":1,"lon":2}"# + "\nnot json\n",
            with: ReplayFormat.json.makeDecoder())
        #expect(json.summary == "2 reports read, 1 fix, 1 report of other classes, 1 line dropped")
        let (_, gpx) = decodeAll(
            """
            <gpx><wpt lat="1" lon="2"/><rte><rtept lat="1" lon="2"/><rtept lat="1" lon="3"/></rte>
            <trk><trkseg><trkpt lat="1" lon="2"/><trkpt lat="3" lon="4"/></trkseg></trk></gpx>
            """, with: ReplayFormat.gpx.makeDecoder())
        #expect(gpx.summary == "2 track points read, 2 fixes, 1 waypoint and 2 route points skipped")
    }
}
