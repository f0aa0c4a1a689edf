import Foundation
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

/// What GPS loggers and converters put in real files, beyond the fields read: line ends,
/// extensions under any prefix, times as they write them, numbers as they print them.
@Suite(.timeLimit(.minutes(10)))
struct GPXLoggerFileTests {
    /// A converter on Windows: CRLF line ends and tabs everywhere, also inside the values.
    @Test func crlfLineEndsAndTabs() {
        let text = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<gpx version="1.1" creator="GPSBabel" xmlns="http://www.topografix.com/GPX/1/1">"#,
            "\t<trk>", "\t\t<trkseg>",
            "\t\t\t<trkpt lat=\"\r\n\t48.137\" lon=\"11.575\t\">",
            "\t\t\t\t<ele>\r\n\t\t\t\t\t519.4\r\n\t\t\t\t</ele>",
            "\t\t\t\t<time>\r\n2024-05-04T07:00:01+01:00\r\n</time>",
            "\t\t\t\t<sat>\t7\t</sat>",
            "\t\t\t</trkpt>",
            "\t\t</trkseg>", "\t\t<trkseg>",
            "\t\t\t<trkpt lat=\"48.138\" lon=\"11.576\"><ele>520</ele><time>2024-05-04T06:00:09Z</time></trkpt>",
            "\t\t</trkseg>", "\t</trk>", "</gpx>", "",
        ].joined(separator: "\r\n")
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.count == 2 && events.count == 3)
        #expect(located[0].lat == 48.137 && located[0].lon == 11.575 && located[0].altMSL == 519.4)
        #expect(located[0].time?.timeIntervalSince1970 == 1_714_802_401 && located[0].satellitesUsed == 7)
        #expect(located[1].time?.timeIntervalSince1970 == 1_714_802_409)
        #expect(statistics.fixes == 2 && statistics.stopReason == nil)
    }

    /// Garmin's TrackPointExtension under the prefixes programs choose, declared on the root
    /// or on the element, or as the default namespace; its other children (temperature,
    /// heart rate, cadence) are read through.
    @Test func trackPointExtensionsUnderAnyPrefix() {
        let text = """
            <gpx version="1.1" creator="Edge 830" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" \
            xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3"><trk><trkseg>
            <trkpt lat="1" lon="2"><ele>3</ele><extensions><gpxtpx:TrackPointExtension>\
            <gpxtpx:atemp>19.0</gpxtpx:atemp><gpxtpx:hr>96</gpxtpx:hr><gpxtpx:cad>80</gpxtpx:cad>\
            </gpxtpx:TrackPointExtension><gpxx:TrackPointExtension><gpxx:Temperature>19</gpxx:Temperature>\
            </gpxx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1" lon="2.1"><extensions><tpx:TrackPointExtension \
            xmlns:tpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"><tpx:hr>97</tpx:hr>\
            <tpx:speed>5.25</tpx:speed><tpx:course>71.5</tpx:course></tpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1" lon="2.2"><extensions><TrackPointExtension \
            xmlns="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"><speed>6.5</speed><course>80</course>\
            </TrackPointExtension></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.count == 3 && events.count == 3)
        #expect(located[0].altMSL == 3 && located[0].speed == nil && located[0].track == nil)
        #expect(located[1].speed == 5.25 && located[1].track == 71.5)
        #expect(located[2].speed == 6.5 && located[2].track == 80)
        #expect(statistics.fixes == 3 && statistics[skipped: .malformed] == 0)
    }

    /// Times as loggers write them: whole seconds, Garmin Connect's `.000`, milliseconds,
    /// nanoseconds, offsets east and west of UTC with and without fractions.
    @Test(arguments: [
        ("2024-05-04T07:00:01Z", 1_714_806_001.0),
        ("2024-05-04T07:00:01.000Z", 1_714_806_001.0),
        ("2024-05-04T07:00:01.250Z", 1_714_806_001.25),
        ("2024-05-04T07:00:01.123456789Z", 1_714_806_001.123456789),
        ("2024-05-04T12:30:01+05:30", 1_714_806_001.0),
        ("2024-05-04T04:00:01.5-03:00", 1_714_806_001.5),
        ("2024-05-04T07:00:01+00:00", 1_714_806_001.0),
    ])
    func timesAsLoggersWriteThem(_ time: String, _ seconds: Double) {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>\(time)</time></trkpt></trkseg></trk></gpx>
            """
        let located = fixes(decodeGPX(text).0)
        #expect(located.count == 1)
        let read = located.first?.time?.timeIntervalSince1970 ?? 0
        #expect(abs(read - seconds) < 1e-6, "\(time) read as \(read)")
    }

    /// A point without a time, or with an empty or unreadable one, keeps its position.
    @Test func missingEmptyAndUnreadableTimes() {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2024-05-04T07:00:01Z</time></trkpt>
            <trkpt lat="1.1" lon="2"><ele>5</ele></trkpt>
            <trkpt lat="1.2" lon="2"><time/></trkpt>
            <trkpt lat="1.3" lon="2"><time>  </time></trkpt>
            <trkpt lat="1.4" lon="2"><time>yesterday</time></trkpt>
            <trkpt lat="1.5" lon="2"><time>2024-05-04T07:00:06Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.map(\.lat) == [1, 1.1, 1.2, 1.3, 1.4, 1.5])
        #expect(located.map { $0.time == nil } == [false, true, true, true, true, false])
        #expect(statistics.records == 6 && statistics.fixes == 6 && statistics[skipped: .malformed] == 0)
    }

    /// Numbers as programs print them read to the double `Double(String)` reads; what is
    /// not a finite number is dropped.
    @Test(arguments: [
        "52.52000459134065", "525.4864501953125", "-33.8688000", "+12.5", ".5", "5.", "1.2E2", "-1e-3",
        "00012.50", "9007199254740993", "9007199254740992", "0.1234567890123456789012", "-0", "0.1",
        // More digits than a double holds exactly: dividing them by a power of ten would round twice.
        "42.968112278371893", "58666727966.2255170", "967.8395056322798815",
        "123456789012345678901234", "179.9999999999999999999", "12a", "1e400", "nan", "inf", "-", ".", "1..2",
        "0x1p3", "1 2", "",
    ])
    func numbersReadAsDoubleReadsThem(_ number: String) {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><ele> \(number) </ele></trkpt></trkseg></trk></gpx>
            """
        let located = fixes(decodeGPX(text).0)
        let expected = Double(number).flatMap { $0.isFinite ? $0 : nil }
        #expect(located.count == 1)
        #expect(located.first?.altMSL?.bitPattern == expected?.bitPattern, "\(number)")
    }
}
