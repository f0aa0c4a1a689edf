import Foundation
import LocationState
import LocationStores
import LocationTestSupport
import LocationTimeline
import Logging
import Testing

@testable import locationd

/// `?TILES`, `?TILESTATS` and `?TIMELINE`: how they are read, what they answer, and how
/// a long answer is written a page at a time behind the client's reading.
@Suite(.timeLimit(.minutes(5)))
struct ControlLongAnswersTests {
    static func request(_ text: String) -> ControlRequest {
        ControlRequest(parsing: Substring(text), days: .utc)
    }

    /// A zoom, or none; anything else is an error object that names what may be given.
    @Test func tilesTakeAZoomOrNothing() {
        #expect(Self.request("?TILES") == .tiles(zoom: nil))
        #expect(Self.request("?TILES=") == .tiles(zoom: nil))
        #expect(Self.request(#"?TILES={"zoom":17}"#) == .tiles(zoom: 17))
        #expect(Self.request(#"?TILESTATS={"zoom":0}"#) == .tileStatistics(zoom: 0))
        #expect(Self.request("?TILESTATS") == .tileStatistics(zoom: nil))
        for bad in [#"{"zoom":true}"#, #"{"zoom":"14"}"#, #"{"zoom":40}"#, #"{"zoom":-1}"#, "[14]", "14"] {
            guard case .invalid(let message) = Self.request("?TILES=" + bad) else {
                Issue.record("?TILES=\(bad) was taken")
                continue
            }
            #expect(message.hasPrefix(#"Invalid TILES: give {"zoom":Z} with Z from 0 to "#), "\(message)")
        }
    }

    /// A day, a range of dates or times (the later date whole), or today; the bounds are
    /// read as `locationd timeline` reads its flags.
    @Test func timelineTakesADayARangeOrToday() throws {
        let day = try #require(TrackExport.day("2026-11-23"))
        #expect(
            Self.request(#"?TIMELINE={"day":"2026-11-23"}"#)
                == .timeline(TimelineRange(start: day, end: day.addingTimeInterval(86_400), title: "of 2026-11-23")))
        let range = Self.request(#"?TIMELINE={"from":"2026-11-23T06:00:00Z","to":"2026-11-24"}"#)
        #expect(
            range
                == .timeline(
                    TimelineRange(
                        start: day.addingTimeInterval(6 * 3600), end: day.addingTimeInterval(2 * 86_400 - 0.001),
                        title: "from 2026-11-23T06:00:00Z to 2026-11-24", spansDays: true)))
        guard case .timeline(let today) = Self.request("?TIMELINE") else {
            Issue.record("?TIMELINE is not today's timeline")
            return
        }
        #expect(today.title == "of \(LocalDays.utc.day(of: Date()))")
        let refused = [
            (#"{"from":"2026-11-23"}"#, "Invalid TIMELINE: give both from and to"),
            (
                #"{"day":"2026-11-23","from":"2026-11-23","to":"2026-11-24"}"#,
                "Invalid TIMELINE: give a day or from and to, not both"
            ),
            (#"{"from":"2026-11-24","to":"2026-11-23"}"#, "Invalid TIMELINE: from 2026-11-24 is after to 2026-11-23"),
            (#"{"day":"yesterday"}"#, "Invalid TIMELINE: not a day (YYYY-MM-DD): 'yesterday'"),
            (
                #"{"day":20261123}"#,
                #"Invalid TIMELINE: give {"day":DATE} or {"from":…,"to":…}, dates or ISO 8601 UTC times, or nothing: {"day":20261123}"#
            ),
            (
                "nonsense",
                #"Invalid TIMELINE: give {"day":DATE} or {"from":…,"to":…}, dates or ISO 8601 UTC times, or nothing: nonsense"#
            ),
        ]
        for (argument, message) in refused {
            #expect(Self.request("?TIMELINE=" + argument) == .invalid(message))
        }
    }

    /// A TILE line carries the record with the times as the file's list prints them, and
    /// reads back to the same line; other lines are not tiles.
    @Test func aTileLineReadsBackToItself() throws {
        let record = TileRecord(
            tile: try #require(Tile(zoom: 17, x: 70406, y: 42987)),
            firstSeen: Date(timeIntervalSince1970: 1_800_000_000.998),
            lastSeen: Date(timeIntervalSince1970: 1_800_000_100.25), visits: 3)
        let line = TileLine(record).jsonString
        #expect(
            line
                == #"{"class":"TILE","z":17,"x":70406,"y":42987,"firstSeen":"2027-01-15T08:00:00.998Z","lastSeen":"2027-01-15T08:01:40.250Z","visits":3}"#
        )
        #expect(TileLine(jsonLine: line) == TileLine(record))
        #expect(
            TileListFormat.csv.entry(record, first: true)
                == TileListFormat.csv.entry(try #require(TileLine(jsonLine: line)), first: true))
        #expect(TileLine(jsonLine: line.replacingOccurrences(of: "\"z\":17", with: "\"z\":40")) == nil)
        #expect(TileLine(jsonLine: #"{"class":"TILES","count":1}"#) == nil)
    }

    /// STAY and TRIP lines read back to entries that write the same lines, open or closed,
    /// with or without the stays a trip joins; the times keep their milliseconds.
    @Test func timelineLinesReadBackToTheSameLines() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000.998)
        let entries: [TimelineEntry] = [
            .stay(
                Stay(
                    start: start, end: start + 301.457, latitude: 52.5163, longitude: 13.37770001, radius: 3.46,
                    fixes: 300)),
            .trip(
                Trip(
                    start: start + 301.457, end: start + 900.001, from: start, distance: 1234.56, maxSpeed: 9.805,
                    fixes: 60)),
            .trip(Trip(start: start + 900.001, end: start + 1000, distance: 10, maxSpeed: 1, fixes: 2, isOpen: true)),
            .stay(
                Stay(
                    start: start + 1000, end: start + 1100, latitude: -33.9, longitude: -179.9999999, radius: 0,
                    fixes: 1, isOpen: true)),
        ]
        for entry in entries {
            let decoded = try #require(TimelineEntry(jsonLine: entry.jsonString))
            #expect(decoded.jsonString == entry.jsonString)
            #expect(UTCCalendar.iso8601(decoded.start) == UTCCalendar.iso8601(entry.start))
        }
        #expect(TimelineEntry(jsonLine: #"{"class":"STAY","start":"2026-11-23T00:00:00.000Z"}"#) == nil)
        #expect(TimelineEntry(jsonLine: #"{"class":"MOTION","state":"moving"}"#) == nil)
    }

    /// The closing lines and the statistics object.
    @Test func closingLinesCarryTheCount() throws {
        #expect(ControlAnswers.tilesEnd(zoom: nil, count: 0) == #"{"class":"TILES","count":0}"#)
        #expect(ControlAnswers.tilesEnd(zoom: 14, count: 5) == #"{"class":"TILES","zoom":14,"count":5}"#)
        let day = try #require(TrackExport.day("2026-11-23"))
        let range = TimelineRange(start: day, end: day + 86_400, title: "")
        let stay = TimelineEntry.stay(
            Stay(start: day + 60, end: day + 600, latitude: 1, longitude: 2, radius: 3, fixes: 4))
        #expect(
            ControlAnswers.timeline([stay], range: range)
                == [
                    stay.jsonString,
                    #"{"class":"TIMELINE","from":"2026-11-23T00:00:00.000Z","to":"2026-11-24T00:00:00.000Z","count":1}"#,
                ])
        let statistics = TileStatistics(zooms: [
            .init(
                zoom: 14, tiles: 5, visits: 7, maxSquare: .init(size: 2, x: 10, y: 20),
                firstSeen: "2027-01-15T08:00:10.000Z", lastSeen: "2027-01-15T08:00:15.500Z")
        ])
        let answer = ControlAnswers.tileStatistics(statistics)
        #expect(answer.hasPrefix(#"{"class":"TILESTATS","zooms":[{"zoom":14,"tiles":5,"#))
        #expect(try JSONDecoder().decode(TileStatistics.self, from: Data(answer.utf8)) == statistics)
        #expect(
            statistics.text(zoom: nil, days: .utc)
                == "zoom 14: 5 tiles, 7 visits, max square 2 at 14/10/20, first 2027-01-15T08:00:10.000Z, last 2027-01-15T08:00:15.500Z\n"
        )
        #expect(TileStatistics(zooms: []).text(zoom: 3, days: .utc) == "no tiles logged at zoom 3\n")
    }

    /// `?TRACK` takes a day or a range, as the user wrote them; anything else is refused.
    @Test func trackTakesADayOrARange() {
        #expect(Self.request(#"?TRACK={"day":"2026-06-30"}"#) == .track(.day("2026-06-30")))
        #expect(
            Self.request(#"?TRACK={"from":"2026-06-30","to":"2026-07-01T00:00:00Z"}"#)
                == .track(.range(from: "2026-06-30", to: "2026-07-01T00:00:00Z")))
        for bad in ["", #"{"from":"2026-06-30"}"#, #"{"day":"2026-06-30","to":"2026-07-01"}"#, #"{"day":3}"#] {
            #expect(
                Self.request("?TRACK=" + bad)
                    == .invalid(#"Invalid TRACK: give {"day":"YYYY-MM-DD"} or {"from":…,"to":…}: "# + bad))
        }
    }

    /// A recorded file goes over in chunks that add up to its bytes, after a line with its
    /// day and size, and the answer closes with the count of files.
    @Test func aTrackIsHandedOverInChunks() throws {
        let directory = try TemporaryDirectory()
        let bytes = Data((0..<1000).map { UInt8($0 % 251) })
        let file = URL(fileURLWithPath: directory.path + "/2026-06-30.nmea")
        try bytes.write(to: file)
        let pages = ControlPages.track(
            TrackExport(files: [file, file], interval: .distantPast ... .distantFuture), chunkBytes: 300,
            chunksPerPage: 2)
        var lines: [String] = []
        while case let page = pages.next(), !page.isEmpty { lines += page }
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            objects.map { $0["class"] as? String } == ["TRACKFILE"] + Array(repeating: "NMEA", count: 4) + ["TRACKFILE"]
                + Array(repeating: "NMEA", count: 4) + ["TRACK"])
        #expect(objects[0]["day"] as? String == "2026-06-30" && objects[0]["bytes"] as? Int == 1000)
        let first = objects[1...4].compactMap { ($0["data"] as? String).flatMap { Data(base64Encoded: $0) } }
        #expect(first.reduce(Data(), +) == bytes)
        #expect(objects.last?["files"] as? Int == 2)
    }

    /// A tile list of 6 MB reaches the client whole and in order, closed by its count, and the
    /// request sent after it is answered after it; the server reads a page from the database
    /// only when the client has taken most of the one before: it is never further ahead of the
    /// reader than its queue bound, the kernel's socket buffers and a page (under 1 MB here).
    @Test func aLongListIsWrittenBehindTheReader() async throws {
        let directory = try TemporaryDirectory()
        let database = try TileDatabase.open(at: URL(fileURLWithPath: directory.path + "/" + TileDatabase.fileName))
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let records = (0..<50_000).map { index in
            TileRecord(
                tile: Tile(zoom: 17, x: 1000 + index / 1000, y: 2000 + index % 1000)!, firstSeen: when, lastSeen: when,
                visits: 1)
        }
        try database.add(records)
        let reader = try TileDatabase.openReadOnly(at: database.url)
        let produced = Locked(0)
        let responder = ControlResponder(
            last: { nil }, status: { "{}" }, watch: { _ in {} },
            tiles: { zoom in
                let pages = ControlPages.tiles(reader, zoom: zoom, pageSize: 100)
                return ControlPages {
                    let page = pages.next()
                    produced.withLock { $0 += page.count }
                    return page
                }
            })
        let server = ControlServer(
            path: directory.path + "/control.sock", responder: responder,
            limits: .init(maxClients: 4, maxRequestBytes: 4096, maxQueuedBytes: 8 * 1024), logger: Logger(label: "test")
        )
        try await server.start()
        var lines: [String] = []
        var furthestAhead = 0
        let answered = try ControlClient.converse("?TILES;?LAST;", socketPath: server.path, timeoutSeconds: 30) {
            line in
            lines.append(line)
            furthestAhead = max(furthestAhead, produced.withLock { $0 } - lines.count)
            return !line.contains(#""class":"TPV""#)
        }
        await server.stop()
        #expect(answered)
        #expect(lines.count == records.count + 2)
        #expect(lines.dropLast(2).map { TileLine(jsonLine: $0)?.tile } == records.map(\.tile))
        #expect(lines[records.count] == #"{"class":"TILES","count":50000}"#)
        #expect(lines.last == ControlAnswers.noFixKnown)
        #expect(furthestAhead < 8000, "the server read \(furthestAhead) tiles ahead of the client")
    }
}
