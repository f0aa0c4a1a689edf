import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

/// Decodes `bytes` with a fresh GPX decoder, handing it `chunkSize` bytes at a time (also for GPXLoggerFileTests).
func decodeGPX(_ bytes: [UInt8], chunkSize: Int = 1 << 20) -> ([ProviderEvent], ReplayStatistics) {
    var decoder = GPXDecoder()
    var events: [ProviderEvent] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + chunkSize, bytes.count)
        bytes[offset..<end].withUnsafeBytes { decoder.decode($0) { events.append(ProviderEvent($0)) } }
        offset = end
    }
    decoder.finish { events.append(ProviderEvent($0)) }
    return (events, decoder.statistics)
}

func decodeGPX(_ text: String, chunkSize: Int = 1 << 20) -> ([ProviderEvent], ReplayStatistics) {
    decodeGPX(Array(text.utf8), chunkSize: chunkSize)
}

private func date(_ text: String) -> Date? { UTCCalendar.parseISO8601(text) }

/// GPX files as common producers write them (synthesized here, after their published
/// formats), and bad XML.
@Suite(.timeLimit(.minutes(10)))
struct GPXDecoderTests {
    /// Garmin Connect / Edge: TrackPointExtension v1 (heart rate, cadence) under a prefix
    /// of its own choosing, and v2 with speed and course.
    @Test func garminTrackPointExtensions() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx creator="Garmin Connect" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
              <metadata><link href="connect.garmin.com"><text>Garmin Connect</text></link>
                <time>2024-05-04T07:00:00.000Z</time></metadata>
              <trk><name>Morning Ride</name><type>cycling</type>
                <trkseg>
                  <trkpt lat="47.3769" lon="8.5417"><ele>408.2</ele><time>2024-05-04T07:00:01.000Z</time>
                    <extensions><ns3:TrackPointExtension><ns3:atemp>19.0</ns3:atemp><ns3:hr>96</ns3:hr>\
            <ns3:cad>80</ns3:cad></ns3:TrackPointExtension></extensions></trkpt>
                  <trkpt lat="47.3770" lon="8.5419"><ele>408.4</ele><time>2024-05-04T07:00:02.000Z</time>
                    <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>97</gpxtpx:hr>\
            <gpxtpx:speed>5.25</gpxtpx:speed><gpxtpx:course>71.5</gpxtpx:course></gpxtpx:TrackPointExtension>\
            </extensions></trkpt>
                </trkseg>
              </trk>
            </gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.count == 2 && events.count == 2)
        #expect(located[0].lat == 47.3769 && located[0].lon == 8.5417 && located[0].altMSL == 408.2)
        #expect(located[0].time == date("2024-05-04T07:00:01.000Z") && located[0].mode == .threeD)
        #expect(located[0].speed == nil && located[0].track == nil)
        #expect(located[1].speed == 5.25 && located[1].track == 71.5)
        #expect(statistics.records == 2 && statistics.fixes == 2 && statistics.stopReason == nil)
    }

    /// OsmAnd: favourites as waypoints, `hdop`, and speed in `extensions`, both unnamespaced
    /// (older versions) and in OsmAnd's namespace.
    @Test func osmAndWithWaypointsAndSpeedInExtensions() {
        let text = """
            <?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
            <gpx version="1.1" creator="OsmAnd~ 4.6.8" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:osmand="https://osmand.net">
              <metadata><name>2024-05-04_09-12_Sat</name></metadata>
              <wpt lat="52.5200" lon="13.4050"><time>2024-05-04T09:10:00Z</time><name>Café &amp; Bar</name>
                <extensions><osmand:color>#b4eecc22</osmand:color></extensions></wpt>
              <wpt lat="52.5210" lon="13.4060"><name>Parking</name></wpt>
              <trk><trkseg>
                <trkpt lat="52.5163" lon="13.3777"><ele>34.1</ele><time>2024-05-04T09:12:00Z</time><hdop>4.2</hdop>
                  <extensions><speed>1.4</speed></extensions></trkpt>
                <trkpt lat="52.5164" lon="13.3779"><ele>34.3</ele><time>2024-05-04T09:12:01Z</time><hdop>3.9</hdop>
                  <extensions><osmand:speed>1.5</osmand:speed><osmand:heading>33</osmand:heading></extensions></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.count == 2 && events.count == 2)
        #expect(located.map(\.speed) == [1.4, 1.5])
        #expect(located.map(\.track) == [nil, 33])
        #expect(located[0].hdop == 4.2 && located[0].eph == 4.2 * 19)
        #expect(located.allSatisfy { $0.lat! > 52.516 && $0.lat! < 52.517 })
        #expect(statistics[skipped: .waypoint] == 2 && statistics[skipped: .routePoint] == 0)
        #expect(statistics.records == 2)
    }

    /// Strava's export: no speed, a schemaLocation, whitespace around values.
    @Test func stravaExport() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx creator="StravaGPX" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd" \
            version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
             <metadata>
              <time>2024-03-01T06:30:00Z</time>
             </metadata>
             <trk>
              <name>Morning Run</name>
              <type>running</type>
              <trkseg>
               <trkpt lat=" -33.8688000 " lon="151.2093000">
                <ele> 12.4 </ele>
                <time>
                  2024-03-01T06:30:00Z
                </time>
               </trkpt>
               <trkpt lat="-33.8689000" lon="151.2094000">
                <ele>12.6</ele>
                <time>2024-03-01T06:30:01Z</time>
               </trkpt>
              </trkseg>
             </trk>
            </gpx>
            """
        let located = fixes(decodeGPX(text).0)
        #expect(located.count == 2)
        #expect(located[0].lat == -33.8688 && located[0].lon == 151.2093 && located[0].altMSL == 12.4)
        #expect(located[0].time == date("2024-03-01T06:30:00Z"))
    }

    /// The schema's times are UTC: one without a zone (older loggers write them so) is UTC,
    /// one with an offset is moved to UTC, fractions are kept.
    @Test func timesWithoutAZoneAreUTCAndOffsetsAreApplied() {
        let text = """
            <gpx version="1.1" creator="OsmAnd" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
              <trkpt lat="52.52" lon="13.405"><time>2024-06-01T10:00:00+02:00</time></trkpt>
              <trkpt lat="52.5201" lon="13.4051"><time>2024-06-01T08:00:01.5</time></trkpt>
              <trkpt lat="52.5202" lon="13.4052"><time>2024-06-01T08:00:03</time></trkpt>
              <trkpt lat="52.5203" lon="13.4053"><time>2024-06-01 08:00</time></trkpt>
            </trkseg></trk></gpx>
            """
        let located = fixes(decodeGPX(text).0)
        #expect(
            located.map(\.time) == [
                date("2024-06-01T08:00:00Z"), date("2024-06-01T08:00:01.5Z"), date("2024-06-01T08:00:03Z"), nil,
            ])
        // Elsewhere (gpsd JSON, the stores, the command line) a time must say its zone.
        #expect(UTCCalendar.parseISO8601("2024-06-01T08:00:03") == nil)
    }

    /// UTF-16 with a byte order mark, as Windows programs write it: libxml2 reads the
    /// encoding from the first bytes.
    @Test func utf16WithAByteOrderMarkIsRead() {
        let text = """
            <?xml version="1.0" encoding="UTF-16"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.5" lon="13.4"><name>Straße</name><time>2025-05-01T10:00:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let little = text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let bytes: [UInt8] = [0xFF, 0xFE] + little
        for chunkSize in [1, 3, 4096] {
            let (events, statistics) = decodeGPX(bytes, chunkSize: chunkSize)
            #expect(fixes(events).map(\.time) == [date("2025-05-01T10:00:00Z")], "chunks of \(chunkSize)")
            #expect(statistics.stopReason == nil, "\(statistics.stopReason ?? "")")
        }
    }

    /// UTF-16 whose bytes do not decode (a high surrogate without its low half): libxml2
    /// raises that outside its parser's context, where it would print it on stderr and end
    /// the parse without a word. The points before it are kept, the one it cuts is
    /// malformed, and the summary says where and why, in any chunking.
    @Test func utf16ThatDoesNotDecodeStopsWithItsReason() {
        func utf16(_ text: String) -> [UInt8] {
            text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        }
        var bytes: [UInt8] = [0xFF, 0xFE]
        bytes += utf16(
            """
            <?xml version="1.0" encoding="UTF-16"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.5" lon="13.4"><time>2025-05-01T10:00:00Z</time></trkpt>
            <trkpt lat="52.6" lon="13.4"><time>2025-05-01T10:00:01Z</time></trkpt>
            <trkpt lat="52.7" lon="13.4"><name>
            """)
        bytes += [0x00, 0xD8, 0x41, 0x00]
        bytes += utf16("</name></trkpt>\n<trkpt lat=\"52.8\" lon=\"13.4\"/></trkseg></trk></gpx>\n")
        for chunkSize in [1, 7, 4096] {
            let (events, statistics) = decodeGPX(bytes, chunkSize: chunkSize)
            #expect(
                fixes(events).map(\.time) == [date("2025-05-01T10:00:00Z"), date("2025-05-01T10:00:01Z")],
                "chunks of \(chunkSize)")
            #expect(statistics.records == 3 && statistics[skipped: .malformed] == 1, "chunks of \(chunkSize)")
            #expect(
                statistics.stopReason
                    == "not well-formed XML: input conversion failed due to input error, bytes 0x00 0xD8 0x41 0x00 (line 5)",
                "chunks of \(chunkSize): \(statistics.stopReason ?? "no stop")")
        }
    }

    /// A field's text too long to be a number or a time is dropped as one that does not
    /// parse: the point is kept, and counted as a fix, not as malformed; the time is
    /// counted as unreadable.
    @Test func anOverlongFieldIsDroppedAndItsPointKept() {
        let long = String(repeating: "1", count: GPXParser.maximumTextLength + 1)
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
              <trkpt lat="1" lon="2"><ele>\(long)</ele><time>2024-06-01T10:00:00Z</time></trkpt>
              <trkpt lat="1" lon="3"><ele>5</ele><time>\(long)</time></trkpt>
            </trkseg></trk></gpx>
            """
        for chunkSize in [1, 100, 4096] {
            let (events, statistics) = decodeGPX(text, chunkSize: chunkSize)
            let located = fixes(events)
            #expect(located.map(\.altMSL) == [nil, 5], "chunks of \(chunkSize)")
            #expect(located.map(\.time) == [date("2024-06-01T10:00:00Z"), nil], "chunks of \(chunkSize)")
            #expect(statistics.records == 2 && statistics.fixes == 2, "chunks of \(chunkSize)")
            #expect(statistics[skipped: .malformed] == 0 && statistics.unreadableTimes == 1, "chunks of \(chunkSize)")
        }
    }

    /// A time that is not one (a day the calendar lacks, words) is dropped from its point,
    /// which is kept, as gpxpy keeps it; the summary counts it. An empty time is no time.
    @Test func anUnreadableTimeIsDroppedAndCounted() {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
              <trkpt lat="1" lon="2"><time>2024-02-30T10:00:00Z</time></trkpt>
              <trkpt lat="1" lon="2"><time>yesterday</time></trkpt>
              <trkpt lat="1" lon="2"><time> </time></trkpt>
              <trkpt lat="1" lon="2"><time>2024-06-01T10:00:00-0700</time></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        #expect(fixes(events).map(\.time) == [nil, nil, nil, date("2024-06-01T17:00:00Z")])
        #expect(statistics.unreadableTimes == 2 && statistics.impossibleTimes == 0)
        let summary = statistics.summary
        #expect(summary.contains("4 fixes, 2 unreadable times dropped (positions kept)"), "\(summary)")
    }

    /// BRouter: a comment with the track's statistics, turn instructions as waypoints, and
    /// the same route as a `rte`, whose points are a plan, not positions.
    @Test func brouterExportWithARouteAndWaypoints() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- track-length = 2345 filtered ascend = 12 plain-ascend = 8 cost=3012 energy=.0kwh time=8m 4s -->
            <gpx xmlns="http://www.topografix.com/GPX/1/1" creator="BRouter-1.7.3" version="1.1">
             <wpt lon="8.681495" lat="49.411746"><ele>112.0</ele><name>right</name><sym>right</sym><type>TR</type></wpt>
             <rte><name>brouter_trekking_0</name>
              <rtept lon="8.681495" lat="49.411746"><ele>112.0</ele></rtept>
              <rtept lon="8.682000" lat="49.412000"><ele>113.0</ele></rtept>
              <rtept lon="8.683000" lat="49.413000"><ele>114.0</ele></rtept>
             </rte>
             <trk>
              <name>brouter_trekking_0</name>
              <trkseg>
               <trkpt lon="8.681495" lat="49.411746"><ele>112.0</ele></trkpt>
               <!-- a comment between points -->
               <trkpt lon="8.682000" lat="49.412000"><ele>113.0</ele></trkpt>
              </trkseg>
             </trk>
            </gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.count == 2 && events.count == 2)
        #expect(located.allSatisfy { $0.time == nil && $0.mode == .threeD })
        #expect(located.map(\.altMSL) == [112, 113])
        #expect(statistics[skipped: .waypoint] == 1 && statistics[skipped: .routePoint] == 3)
    }

    /// GPX 1.0 has `speed` and `course` as children of the point itself.
    @Test func gpx10SpeedAndCourse() {
        let text = """
            <?xml version="1.0"?>
            <gpx version="1.0" creator="GPSBabel - http://www.gpsbabel.org" xmlns="http://www.topografix.com/GPX/1/0">
            <time>2010-08-21T08:37:00Z</time>
            <trk><trkseg>
            <trkpt lat="51.9" lon="4.5"><ele>-4.0</ele><time>2010-08-21T08:37:23Z</time><course>123.4</course>\
            <speed>12.5</speed><fix>3d</fix><sat>7</sat><hdop>1.2</hdop><vdop>2.0</vdop></trkpt>
            <trkpt lat="51.91" lon="4.51"><time>2010-08-21T08:37:24Z</time><fix>2d</fix></trkpt>
            <trkpt lat="51.92" lon="4.52"><time>2010-08-21T08:37:25Z</time><fix>none</fix></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(located.count == 2)
        #expect(statistics.summary == "3 track points read, 2 fixes, 1 without a fix")
        #expect(located[0].track == 123.4 && located[0].speed == 12.5 && located[0].satellitesUsed == 7)
        #expect(located[0].mode == .threeD && located[0].altMSL == -4 && located[0].epv == 46)
        #expect(located[1].mode == .twoD && located[1].altMSL == nil)
        #expect(events.last == .noFix(date("2010-08-21T08:37:25Z")))
    }

    /// A byte order mark, CDATA, comments, processing instructions, predefined and
    /// character entities, and an entity declared in the document.
    @Test func bomCDATACommentsAndEntities() {
        let text = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE gpx [ <!ENTITY height "250.5"> ]>
            <?xml-stylesheet type="text/xsl" href="track.xsl"?>
            <gpx version="1.1" creator="hand &amp; made" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name><![CDATA[A < B & C]]></name><trkseg>
            <trkpt lat="46.5" lon="7.5"><!-- inside --><ele><![CDATA[1200.5]]></ele>\
            <time><![CDATA[2024-07-01T12:00:00Z]]></time></trkpt>
            <trkpt lat="&#52;6.6" lon="7.6"><ele>&#49;&#x32;01.5</ele><time>2024-07-01T12:00:01Z</time></trkpt>
            <trkpt lat="46.7" lon="7.7"><ele>&height;</ele><time>2024-07-01T12:00:02Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        let located = fixes(events)
        #expect(statistics.stopReason == nil)
        #expect(located.count == 3)
        #expect(located[0].altMSL == 1200.5 && located[0].time == date("2024-07-01T12:00:00Z"))
        #expect(located[1].lat == 46.6 && located[1].altMSL == 1201.5)
        #expect(located[2].altMSL == 250.5)
    }

    /// Segment breaks are kept: each new segment after one with points starts with a
    /// no-fix report, also across tracks; empty segments add none.
    @Test func segmentBreaksAreNoFixReports() {
        func point(_ second: Int) -> String {
            #"<trkpt lat="1.\#(second)" lon="2"><time>2024-01-01T00:00:0\#(second)Z</time></trkpt>"#
        }
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>\(point(0))\(point(1))</trkseg><trkseg></trkseg><trkseg>\(point(2))</trkseg></trk>
            <trk><trkseg>\(point(3))</trkseg></trk>
            </gpx>
            """
        let (events, _) = decodeGPX(text)
        let kinds = events.map { event -> String in
            switch event {
            case .fix(let location): "\(location.lat!)"
            case .noFix(nil): "break"
            default: "other"
            }
        }
        #expect(kinds == ["1.0", "1.1", "break", "1.2", "break", "1.3"])
    }

    /// Chunk boundaries anywhere (inside a tag, a number, a BOM) change nothing.
    @Test(arguments: [1, 3, 7, 64, 4096])
    func chunkBoundariesDoNotMatter(_ chunkSize: Int) {
        var text =
            "\u{FEFF}<?xml version=\"1.0\"?><gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
        for index in 0..<300 {
            text += #"<trkpt lat="\#(Double(index) / 1000)" lon="\#(10 + Double(index) / 1000)"><ele>\#(index)</ele>"#
            text += "<time>2024-01-01T00:\(String(format: "%02d:%02d", index / 60, index % 60))Z</time></trkpt>\n"
        }
        text += "</trkseg></trk></gpx>"
        let whole = decodeGPX(text)
        let chunked = decodeGPX(text, chunkSize: chunkSize)
        #expect(fixes(whole.0).count == 300)
        #expect(chunked.0.count == whole.0.count)
        #expect(chunked.0 == whole.0, "events differ")
        #expect(chunked.1 == whole.1)
    }

    /// A million laughs: libxml2 stops at its entity amplification check, at once, and the
    /// points before the bomb are kept.
    @Test func entityBombEndsTheDocument() {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [\n <!ENTITY lol0 \"lol\">\n"
        for level in 1...9 {
            text += " <!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
        }
        text += """
            ]>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="1" lon="2"><name>&lol9;</name><ele>&lol9;</ele></trkpt>
            <trkpt lat="1" lon="3"></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        #expect(fixes(events).count == 1)
        #expect(statistics.stopReason?.contains("entity") == true, "\(statistics.stopReason ?? "no stop")")
        #expect(statistics[skipped: .malformed] == 1)
    }

    /// External entities and DTDs are never loaded, even from a local file.
    @Test func externalEntitiesAreNotLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-\(UUID().uuidString)")
        try Data("77".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx SYSTEM "\(secret.absoluteString)" [ <!ENTITY secret SYSTEM "\(secret.absoluteString)"> ]>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><ele>&secret;</ele></trkpt>
            </trkseg></trk></gpx>
            """
        let located = fixes(decodeGPX(text).0)
        #expect(located.count == 1)
        #expect(located.first?.altMSL == nil)
    }

    @Test func deepNestingEndsTheDocument() {
        let text =
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk>"
            + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + "</gpx>"
        let (events, statistics) = decodeGPX(text, chunkSize: 4096)
        #expect(fixes(events).count == 1)
        #expect(statistics.stopReason?.contains("nested deeper than 256") == true)
    }

    @Test func invalidUTF8EndsTheDocumentKeepingTheFixesBefore() {
        var bytes = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><ele>3</ele></trkpt>
            <trkpt lat="1" lon="2"><name>
            """.utf8)
        bytes += [0xFF, 0xFE, 0x41]
        bytes += Array("</name></trkpt><trkpt lat=\"5\" lon=\"6\"/></trkseg></trk></gpx>".utf8)
        let (events, statistics) = decodeGPX(bytes)
        #expect(fixes(events).map(\.altMSL) == [3])
        #expect(statistics.stopReason?.contains("UTF-8") == true, "\(statistics.stopReason ?? "no stop")")
        #expect(statistics.stopReason?.contains("line 4") == true, "\(statistics.stopReason ?? "no stop")")
    }

    @Test func aTruncatedFileKeepsItsCompletePoints() {
        let text = """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><ele>3</ele></trkpt>
            <trkpt lat="1" lon="2"><ele>4</e
            """
        let (events, statistics) = decodeGPX(text)
        #expect(fixes(events).map(\.altMSL) == [3])
        #expect(statistics.records == 2 && statistics[skipped: .malformed] == 1)
        #expect(statistics.stopReason?.hasPrefix("not well-formed XML") == true)
    }

    /// OsmAnd writes the course it recorded as `heading` (osmand.net, "OsmAnd GPX"); a
    /// `course` in the same point is the course, whichever comes first.
    @Test func osmAndsHeadingIsTheCourseUnlessThePointHasOne() {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:osmand="https://osmand.net">
            <trk><trkseg>
            <trkpt lat="1" lon="2"><extensions><osmand:heading>273</osmand:heading></extensions></trkpt>
            <trkpt lat="1" lon="2"><extensions><heading>12</heading><course>45</course></extensions></trkpt>
            <trkpt lat="1" lon="2"><extensions><course>46</course><heading>13</heading></extensions></trkpt>
            <trkpt lat="1" lon="2"><extensions><speed>2</speed></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let (events, _) = decodeGPX(text)
        #expect(fixes(events).map(\.track) == [273, 45, 46, nil])
    }

    /// XML that is not GPX (a KML, an HTML page) stops at its root with the reason, rather
    /// than reading as a GPX without a track; a GPX root under a prefix is GPX.
    @Test func aDocumentThatIsNotGPXSaysSo() {
        let kml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><Point>
            <coordinates>13.4,52.5,0</coordinates></Point></Placemark></Document></kml>
            """
        let (events, statistics) = decodeGPX(kml)
        #expect(events.isEmpty && statistics.records == 0)
        #expect(statistics.stopReason == "not a GPX document, its root element is <kml> (line 2)")

        let prefixed = """
            <g:gpx version="1.1" xmlns:g="http://www.topografix.com/GPX/1/1"><g:trk><g:trkseg>
            <g:trkpt lat="1" lon="2"><g:ele>3</g:ele></g:trkpt></g:trkseg></g:trk></g:gpx>
            """
        let (located, read) = decodeGPX(prefixed)
        #expect(fixes(located).map(\.altMSL) == [3] && read.stopReason == nil)

        let capitals = #"<GPX version="1.1"><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></GPX>"#
        let (points, _) = decodeGPX(capitals)
        #expect(fixes(points).count == 1, "a root in capitals reads as before")
    }

    @Test func aGPXWithoutATrackHasNoFixes() {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="1" lon="2"/><rte><rtept lat="1" lon="2"/><rtept lat="1" lon="3"/></rte></gpx>
            """
        let (events, statistics) = decodeGPX(text)
        #expect(events.isEmpty)
        #expect(statistics.records == 0 && statistics.fixes == 0 && statistics.stopReason == nil)
        #expect(statistics[skipped: .waypoint] == 1 && statistics[skipped: .routePoint] == 2)
    }

    /// A long file streams: points are emitted chunk by chunk, before the end.
    @Test func pointsAreEmittedBeforeTheEnd() {
        var decoder = GPXDecoder()
        var count = 0
        let head = #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        Array(head.utf8).withUnsafeBytes { decoder.decode($0) { _ in count += 1 } }
        let block = Array(String(repeating: #"<trkpt lat="1" lon="2"><ele>3</ele></trkpt>"# + "\n", count: 2000).utf8)
        for _ in 0..<10 { block.withUnsafeBytes { decoder.decode($0) { _ in count += 1 } } }
        #expect(count >= 19_000)
        decoder.finish { _ in count += 1 }
        #expect(count == 20_000)
        #expect(decoder.statistics.fixes == 20_000)
        // The document was never closed.
        #expect(decoder.statistics.stopReason != nil, "\(decoder.statistics.stopReason ?? "no stop")")
    }
}
