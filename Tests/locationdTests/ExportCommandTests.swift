import Foundation
import LocationTestSupport
import Testing

/// `locationd export`: the recorded tracks as GPX 1.1, the same bytes the HTTP API
/// answers for the same day or range, and one line with a sysexits status for bad input.
@Suite(.timeLimit(.minutes(5)))
struct ExportCommandTests {
    /// A data directory whose `tracks/` holds two recorded days: the walk (2026-05-14)
    /// and the track with a fix loss in the middle (2026-02-03), as the recorder names them.
    static func recordedData(in directory: borrowing TemporaryDirectory) throws -> String {
        let tracks = directory.path + "/data/tracks"
        try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: true)
        let samples = HTTPAPITests.root.appendingPathComponent("SampleTracks")
        try FileManager.default.copyItem(
            atPath: samples.appendingPathComponent("walk.nmea").path, toPath: tracks + "/2026-05-14.nmea")
        try FileManager.default.copyItem(
            atPath: samples.appendingPathComponent("fix-loss.nmea").path, toPath: tracks + "/2026-02-03.nmea")
        return directory.path + "/data"
    }

    @Test func exportWritesTheBytesTheAPIAnswers() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.recordedData(in: directory)
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--source", "simulated"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let cases: [(path: String, arguments: [String])] = [
            ("/api/v1/tracks/2026-05-14.gpx", ["2026-05-14"]),
            ("/api/v1/tracks/2026-02-03.gpx", ["2026-02-03"]),
            ("/api/v1/tracks.gpx?from=2026-02-01&to=2026-02-28", ["--from", "2026-02-01", "--to", "2026-02-28"]),
            (
                "/api/v1/tracks.gpx?from=2026-05-14T09:01:00Z&to=2026-05-14T09:02:30.5Z",
                ["--from", "2026-05-14T09:01:00Z", "--to", "2026-05-14T09:02:30.5Z"]
            ),
            ("/api/v1/tracks.gpx?from=2001-01-01&to=2001-01-02", ["--from", "2001-01-01", "--to", "2001-01-02"]),
        ]
        for (path, arguments) in cases {
            let answer = try await client.get(path)
            #expect(answer.status == 200, "\(path): \(answer.body.prefix(200))")
            let run = try await runLocationd(["export", "--data-dir", data] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout == answer.body, "\(arguments): the export differs from GET \(path)")
            #expect(run.stderr.isEmpty)
            // --output: the same bytes in a file, which validates against the GPX 1.1 schema.
            let file = directory.path + "/export.gpx"
            let written = try await runLocationd(["export", "--data-dir", data, "--output", file] + arguments)
            #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == answer.body)
            let lint = try await runProgram(
                "/usr/bin/xmllint", ["--noout", "--schema", HTTPAPITests.schema.path, file])
            #expect(lint.status == 0, "\(arguments): \(lint.stderr)")
        }
        // What the cases hold: the walk's 300 points, the fix loss as two segments, none in 2001.
        let walk = try await runLocationd(["export", "--data-dir", data, "2026-05-14"])
        #expect(walk.stdout.components(separatedBy: "<trkpt").count - 1 == 300)
        let loss = try await runLocationd(["export", "--data-dir", data, "2026-02-03"])
        #expect(loss.stdout.components(separatedBy: "<trkseg>").count - 1 == 2)
        let partial = try await runLocationd(
            ["export", "--data-dir", data, "--from", "2026-05-14T09:01:00Z", "--to", "2026-05-14T09:02:30.5Z"])
        #expect(partial.stdout.components(separatedBy: "<trkpt").count - 1 == 91)
        #expect(try await daemon.stop().status == 0)
    }

    @Test(arguments: [
        (["2026-05-15"], 66, "no track was recorded on 2026-05-15"),
        (["2026-02-30"], 64, "a day is written YYYY-MM-DD"),
        (["../../etc/passwd"], 64, "a day is written YYYY-MM-DD"),
        (["--from", "2026-05-15", "--to", "2026-05-14"], 64, "the range is backwards"),
        (["--from", "yesterday", "--to", "2026-05-14"], 64, "from is not a date"),
        (["--from", "2026-05-14"], 64, "a range needs both --from and --to"),
        (["--to", "2026-05-14"], 64, "a range needs both --from and --to"),
        (["--data-dir", "/nonexistent/locationd", "2026-05-14"], 66, "no data directory at /nonexistent/locationd"),
        (["--output", "/nonexistent/dir/x.gpx", "2026-05-14"], 73, "/nonexistent/dir"),
    ])
    func badInputIsOneLineAndASysexitsStatus(arguments: [String], status: Int32, message: String) async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.recordedData(in: directory)
        let run = try await runLocationd(
            ["export"] + (arguments.contains("--data-dir") ? [] : ["--data-dir", data]) + arguments)
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("locationd: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data/tracks/2026-05-14.nmea"))
    }

    @Test func anExistingOutputFileIsReplacedWholeOrLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.recordedData(in: directory)
        let file = directory.path + "/day.gpx"
        try "old".write(toFile: file, atomically: true, encoding: .utf8)
        let failed = try await runLocationd(["export", "--data-dir", data, "--output", file, "2026-05-15"])
        #expect(failed.status == 66)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "old")
        let run = try await runLocationd(["export", "--data-dir", data, "--output", file, "2026-05-14"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasSuffix("</gpx>\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["data", "day.gpx"])
    }
}
