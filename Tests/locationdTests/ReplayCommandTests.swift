import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// A fresh temporary file holding `bytes`.
func temporaryFile(_ bytes: [UInt8], suffix: String = ".nmea") throws -> String {
    let path = NSTemporaryDirectory() + "locationd-test-\(UUID().uuidString)\(suffix)"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite(.timeLimit(.minutes(10)))
struct ReplayCommandTests {
    @Test func jsonPrintsOneTPVPerLineAndASummary() async throws {
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--format", "json",
        ])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 300)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"class":"TPV","mode":3,"time":"2026-05-14T09:0"#) })
        #expect(lines.allSatisfy { $0.hasSuffix(#""source":"replay"}"#) })
        #expect(
            run.stderr.contains(
                "600 sentences read, 300 fixes, 0 bad checksums, 0 unknown sentences, 0 lines dropped"))
    }

    @Test func summaryCountsTheDamage() async throws {
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("corrupt.nmea"), "--speed", "max", "--format", "json",
        ])
        #expect(run.status == 0)
        #expect(run.stdout.split(separator: "\n").count == 119)
        #expect(
            run.stderr.contains(
                "252 sentences read, 119 fixes, 12 bad checksums, 24 unknown sentences, 12 malformed, 13 lines dropped")
        )
    }

    @Test(arguments: ["text", "geojson", "gpx"])
    func otherFormats(_ format: String) async throws {
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("antimeridian.nmea"), "--speed", "max", "--format", format,
        ])
        #expect(run.status == 0)
        switch format {
        case "geojson":
            let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            #expect((object?["features"] as? [Any])?.count == 200)
        case "gpx":
            #expect(run.stdout.hasPrefix("<?xml") && run.stdout.hasSuffix("</gpx>\n"))
            #expect(run.stdout.components(separatedBy: "<trkpt ").count == 201)
        default:
            #expect(run.stdout.split(separator: "\n").count == 200)
            #expect(run.stdout.hasPrefix("2026-08-01T00:00:00.000Z 3D -16.800000 179.991000 alt 2.0 m speed 10.00 m/s"))
        }
    }

    /// A GPX's waypoints and route points are skipped and counted; a document cut short
    /// ends with the reason, and the file still counts as read (exit 0).
    @Test func gpxSummaryCountsSkippedPointsAndSaysWhereItStopped() async throws {
        let text = """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1" lon="2"/>
            <rte><rtept lat="1" lon="2"/><rtept lat="1" lon="3"/></rte>
            <trk><trkseg><trkpt lat="1" lon="2"><ele>3</ele></trkpt>
            <trkpt lat="1" lon="2"><ele>4</e
            """
        let path = try temporaryFile(Array(text.utf8), suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json"])
        #expect(run.status == 0)
        #expect(run.stdout.split(separator: "\n").count == 1)
        #expect(
            run.stderr.contains(
                "2 track points read, 1 fix, 1 malformed, 1 waypoint and 2 route points skipped; "
                    + "stopped early: not well-formed XML: "),
            "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    /// Bytes a GPX's encoding cannot decode are one line of summary too: libxml2 reports
    /// them outside its parser, on stderr, unless locationd takes the report.
    @Test func aGPXWhoseBytesDoNotDecodeIsOneLine() async throws {
        let text = """
            <?xml version="1.0" encoding="UTF-16"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><ele>3</ele></trkpt>
            <trkpt lat="1" lon="2"><name>
            """
        var bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        bytes += [0x00, 0xD8, 0x41, 0x00]
        let path = try temporaryFile(bytes, suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json"])
        #expect(run.status == 0)
        #expect(run.stdout.split(separator: "\n").count == 1)
        #expect(
            run.stderr.hasSuffix(
                "2 track points read, 1 fix, 1 malformed; stopped early: not well-formed XML: "
                    + "input conversion failed due to input error, bytes 0x00 0xD8 0x41 0x00 (line 4)\n"),
            "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test func gpxOutputReplaysToTheSameFixes() async throws {
        let gpx = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--format", "gpx",
        ])
        let path = try temporaryFile(Array(gpx.stdout.utf8), suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let direct = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--format", "text",
        ])
        let again = try await runLocationd(["replay", path, "--speed", "max", "--format", "text"])
        #expect(again.status == 0)
        // Time, dimension, latitude, longitude and altitude agree; speed may differ in its last printed digit.
        func columns(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.split(separator: " ").prefix(6).joined(separator: " ") }
        }
        #expect(columns(again.stdout).count == 300)
        #expect(columns(again.stdout) == columns(direct.stdout))
    }

    @Test func jsonOutputReplaysAsGpsdJSON() async throws {
        let json = try await runLocationd([
            "replay", Repository.sampleTrack("drive.nmea"), "--speed", "max", "--format", "json",
        ])
        let path = try temporaryFile(Array(json.stdout.utf8), suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let again = try await runLocationd(["replay", path, "--input", "json", "--speed", "max", "--format", "json"])
        #expect(again.status == 0)
        #expect(again.stdout == json.stdout)
    }

    /// A walk with 10 s of it cut out: with the daemon's 5 s timeout, the fix goes stale 5 s
    /// after the last one before the gap and is live again at the first after it, in that
    /// order among the fixes; with a 15 s timeout there is no stale period. At full speed.
    @Test func aGapInTheTrackShowsAsAStalePeriod() async throws {
        let walk = try String(contentsOfFile: Repository.sampleTrack("walk.nmea"), encoding: .utf8)
        let lines = walk.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") }
        // Two sentences per second: keep 09:00:00-09:00:09 and 09:00:20-09:00:29.
        let track = (lines[0..<20] + lines[40..<60]).joined(separator: "\n") + "\n"
        let path = try temporaryFile(Array(track.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json"])
        #expect(run.status == 0)
        let objects = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let summary = objects.map { object in
            object["class"] as? String == "STATUS"
                ? "\(object["state"] ?? "") \(object["time"] ?? "")"
                : "\(object["class"] ?? "") \(object["time"] ?? "")"
        }
        let fix = { (second: Int) in String(format: "TPV 2026-05-14T09:00:%02d.000Z", second) }
        #expect(
            summary
                == (0..<10).map(fix) + ["stale 2026-05-14T09:00:14.000Z", "live 2026-05-14T09:00:20.000Z"]
                + (20..<30).map(fix))
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")

        let patient = try await runLocationd([
            "replay", path, "--speed", "max", "--format", "text", "--freshness-timeout", "15",
        ])
        #expect(patient.status == 0)
        #expect(patient.stdout.split(separator: "\n").count == 20)
        #expect(!patient.stdout.contains("STATUS"))
        let text = try await runLocationd(["replay", path, "--speed", "max", "--format", "text"])
        #expect(text.stdout.contains("2026-05-14T09:00:14.000Z STATUS stale (last fix 2026-05-14T09:00:09.000Z)\n"))
        let bad = try await runLocationd(["replay", path, "--freshness-timeout", "0"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("freshness-timeout must be a number of seconds"))
    }

    /// A `gpspipe -w` recording of a receiver's cold start: gpsd's no-fix reports carry no
    /// time until the receiver knows it. The status before the track's first time has none
    /// (the replay never stamps the track with the time it runs); the later ones have the
    /// track's.
    @Test func aStatusBeforeTheTracksFirstTimeHasNoTime() async throws {
        let track = """
            {"class":"TPV","device":"/dev/ttyACM0","mode":1}
            {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-05-14T09:00:00.000Z","lat":52.5145,"lon":13.3501}
            {"class":"TPV","device":"/dev/ttyACM0","mode":1,"time":"2026-05-14T09:00:01.000Z"}

            """
        let path = try temporaryFile(Array(track.utf8), suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let json = try await runLocationd(["replay", path, "--speed", "max", "--format", "json"])
        #expect(json.status == 0)
        let statuses = json.stdout.split(separator: "\n").filter { $0.contains(#""class":"STATUS""#) }.map(String.init)
        let lastFix = #","lastFix":"2026-05-14T09:00:00.000Z"}"#
        #expect(
            statuses == [
                #"{"class":"STATUS","source":"replay","state":"nofix","connected":true}"#,
                #"{"class":"STATUS","time":"2026-05-14T09:00:00.000Z","source":"replay","state":"live","connected":true"#
                    + lastFix,
                #"{"class":"STATUS","time":"2026-05-14T09:00:01.000Z","source":"replay","state":"nofix","connected":true"#
                    + lastFix,
            ])
        let text = try await runLocationd(["replay", path, "--speed", "max", "--format", "text"])
        #expect(text.stdout.hasPrefix("(no time) STATUS nofix\n"), "\(text.stdout)")
    }

    @Test func missingFileIsNoInput() async throws {
        let run = try await runLocationd(["replay", "/nonexistent/track.nmea"])
        #expect(run.status == 66)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "locationd: /nonexistent/track.nmea: no such file; check the path.\n")
    }

    /// The commute cut in two in the middle of its stop, replayed as two files: the same
    /// fixes, the same one stay and the same trips as the whole file (the timeline runs on
    /// across the files), a segment break between them (the status `nofix`, then `live`),
    /// and a summary line for each file whose counts add up to the whole's.
    @Test func twoFilesReplayAsTheOneTrackTheyWereCutFrom() async throws {
        let path = Repository.sampleTrack("commute.nmea")
        // Bytes, not a String: a String's "\r\n" is one Character, which no "\n" splits.
        let lines = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))).split(
            separator: 10, omittingEmptySubsequences: false)
        let parked = ReplaySampleTracks.commuteTrack().parked
        let middle = parked.lowerBound.addingTimeInterval(parked.upperBound.timeIntervalSince(parked.lowerBound) / 2)
        // The whole second of the middle: "2026-09-15T06:58:04", and as NMEA writes it, "065804".
        let second = UTCCalendar.iso8601(middle).prefix(19)
        let stamp = second.dropFirst(11).replacingOccurrences(of: ":", with: "")
        let cut = try #require(lines.firstIndex { $0.starts(with: "$GPGGA,\(stamp)".utf8) })
        let head = try temporaryFile(Array(lines[..<cut].joined(separator: [10])) + [10])
        let tail = try temporaryFile(Array(lines[cut...].joined(separator: [10])))
        defer { for file in [head, tail] { try? FileManager.default.removeItem(atPath: file) } }
        let flags = ["--speed", "max", "--format", "json", "--timeline"]

        let whole = try await runLocationd(["replay", path] + flags)
        let split = try await runLocationd(["replay", head, tail] + flags)
        #expect(whole.status == 0 && split.status == 0, "\(split.stderr)")
        let kept = { (run: Run, kind: String) in run.stdout.split(separator: "\n").filter { $0.contains(kind) } }
        // The same fixes, but for the climb of the second file's first: the rate of climb
        // is read from the fix before it, which a new segment does not have.
        var fixes = kept(whole, #""class":"TPV""#).map(String.init)
        let first = try #require(fixes.firstIndex { $0.contains(#""time":"\#(second)"#) })
        fixes[first] = fixes[first].replacingOccurrences(
            of: #","climb":-?[0-9.]+"#, with: "", options: .regularExpression)
        #expect(kept(split, #""class":"TPV""#).map(String.init) == fixes)
        #expect(kept(whole, #""class":"STAY""#).count == 1)
        #expect(kept(split, #""class":"STAY""#) == kept(whole, #""class":"STAY""#))
        #expect(kept(split, #""class":"TRIP""#) == kept(whole, #""class":"TRIP""#))
        let states = kept(split, #""class":"STATUS""#).map { $0.contains(#""state":"nofix""#) ? "nofix" : "other" }
        #expect(states.filter { $0 == "nofix" }.count == kept(whole, #""state":"nofix""#).count + 1)

        let summaries = split.stderr.split(separator: "\n").filter { $0.contains("sentences read") }
        #expect(summaries.count == 2)
        #expect(summaries.first?.hasPrefix("locationd: \(head): ") == true)
        #expect(summaries.last?.hasPrefix("locationd: \(tail): ") == true)
        let read = { (line: Substring) in Int(line.split(separator: ": ")[2].split(separator: " ")[0]) ?? -1 }
        let wholeRead = try #require(whole.stderr.split(separator: "\n").first { $0.contains("sentences read") })
        #expect(summaries.map(read).reduce(0, +) == read(wholeRead))
        #expect(split.stderr.contains("locationd: 2 files: timeline: 1 stay"))
    }

    /// A missing file among several is found before any fix is replayed: nothing on stdout,
    /// the one line that names it, exit 66.
    @Test func aMissingFileAmongSeveralIsFoundFirst() async throws {
        let walk = Repository.sampleTrack("walk.nmea")
        let run = try await runLocationd(["replay", walk, "/nonexistent/track.nmea", walk, "--speed", "max"])
        #expect(run.status == 66)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "locationd: /nonexistent/track.nmea: no such file; check the path.\n")
        let none = try await runLocationd(["replay", "--speed", "max"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("Missing expected argument"))
    }

    @Test func directoryIsNoInput() async throws {
        let run = try await runLocationd(["replay", NSTemporaryDirectory()])
        #expect(run.status == 66)
        #expect(run.stderr.contains("is a directory"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ["--speed", "0"], ["--speed", "fast"], ["--speed", "1e-19"], ["--speed", "1e-300"], ["--speed", "0.0009"],
        ["--speed", "1e7"], ["--speed", "inf"], ["--speed", "nan"], ["--speed", "-1"], ["--format", "kml"],
        ["--input", "csv"], ["--bogus"],
    ])
    func badFlagsAreUsageErrors(_ flags: [String]) async throws {
        let run = try await runLocationd(["replay", Repository.sampleTrack("walk.nmea")] + flags)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }

    @Test func emptyFileIsReadWithZeroCounts() async throws {
        let path = try temporaryFile([])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json"])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("0 sentences read, 0 fixes, 0 bad checksums, 0 unknown sentences, 0 lines dropped"))
    }

    @Test func randomBytesAreReadWithoutInventingAFix() async throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // `--input nmea`: the counts checked are the NMEA reader's, and random bytes that
        // happen to start with `{` or `<` (about one run in a hundred) are detected as JSON or GPX.
        let run = try await runLocationd(["replay", path, "--input", "nmea", "--speed", "max", "--format", "json"])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
        // Anchored on ", " so that "10 fixes" or "8050 lines dropped" do not match.
        #expect(run.stderr.contains(", 0 fixes,"))
        #expect(!run.stderr.contains(", 0 lines dropped"))
    }

    /// With `WRITE_SAMPLE_TRACKS=1` in the environment, writes them instead:
    /// `WRITE_SAMPLE_TRACKS=1 swift test --filter sampleTracksAreWhatTheGeneratorWrites`.
    @Test func sampleTracksAreWhatTheGeneratorWrites() throws {
        let write = ProcessInfo.processInfo.environment["WRITE_SAMPLE_TRACKS"] == "1"
        for (name, bytes) in ReplaySampleTracks.all() {
            let url = URL(fileURLWithPath: Repository.sampleTrack(name))
            if write { try Data(bytes).write(to: url, options: .atomic) }
            let committed = try Data(contentsOf: url)
            #expect(
                Array(committed) == bytes,
                "SampleTracks/\(name) differs: WRITE_SAMPLE_TRACKS=1 swift test --filter sampleTracksAreWhatTheGeneratorWrites"
            )
        }
    }
}
