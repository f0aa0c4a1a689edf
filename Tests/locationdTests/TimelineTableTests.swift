import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationTimeline

/// `locationd timeline` as a table, read from a timeline file, and `--rebuild` of what
/// `tracks/` holds.
@Suite(.timeLimit(.minutes(5)))
struct TimelineTableTests {
    struct Fix {
        var seconds: Double
        var north: Double
    }

    /// A timeline file in `data` made from fixes a minute apart, `north` metres from 47.37° N
    /// 8.54° E, `seconds` after 2026-11-18T20:00:00Z: closed stays and trips and the
    /// tracker's state, as the daemon leaves it when it stops.
    static func timeline(in data: String, _ fixes: [Fix]) throws {
        var tracker = MotionTracker()
        var events: [TimelineEvent] = []
        for fix in fixes {
            events += tracker.ingest(
                Location(
                    time: Date(timeIntervalSince1970: 1_795_032_000 + fix.seconds), mode: .threeD,
                    lat: 47.37 + fix.north / 111_195, lon: 8.54, source: .gpsd))
        }
        try TimelineStore(directory: URL(fileURLWithPath: data), logger: Logger(label: "test"))
            .record(events, tracker: tracker)
    }

    /// Parked from 20:00 to 23:00 at one place, half an hour's walk of 2 km, and parked from
    /// 23:30 to 01:00 the next day.
    static let twoDays: [Fix] = {
        let first = stride(from: 0.0, through: 10_800, by: 60).map { Fix(seconds: $0, north: 0) }
        let walk = (1..<30).map { Fix(seconds: 10_800 + Double($0) * 60, north: Double($0) * 2000 / 30) }
        let second = stride(from: 12_600.0, through: 18_000, by: 60).map { Fix(seconds: $0, north: 2000) }
        return first + walk + second
    }()

    /// A range of several days: each time carries its date.
    @Test func aTableOverSeveralDaysDatesItsTimes() async throws {
        let directory = try TemporaryDirectory()
        try Self.timeline(in: directory.path, Self.twoDays)
        let run = try await runLocationd([
            "timeline", "--data-dir", directory.path, "--from", "2026-11-18", "--to", "2026-11-19",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").filter { $0.contains("  stay  ") || $0.contains("  trip  ") }
        #expect(rows.count == 3, "\(run.stdout)")
        #expect(rows.first?.hasPrefix("2026-11-18 20:00–2026-11-18 23:") == true, "\(run.stdout)")
        #expect(rows.last?.hasPrefix("2026-11-18 23:") == true && rows.last?.contains("–2026-11-19 01:00*") == true)
    }

    /// An entry still open in a file the daemon left: open as of its last fix, not "now".
    @Test func anOpenEntryFromAFileIsOpenAtItsLastFix() async throws {
        let directory = try TemporaryDirectory()
        try Self.timeline(in: directory.path, Self.twoDays)
        let run = try await runLocationd(["timeline", "--data-dir", directory.path, "2026-11-19"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("now"), "\(run.stdout)")
        #expect(run.stdout.contains("–2026-11-19 01:00*  stay"), "\(run.stdout)")
        #expect(run.stdout.contains("* still open at its last fix"), "\(run.stdout)")
    }

    /// A track file that is a symbolic link (to /etc/passwd) is no recorded day: the
    /// rebuild says so in one line and leaves it out.
    @Test func theRebuildSkipsASymbolicLink() async throws {
        let directory = try TemporaryDirectory()
        let tracks = directory.path + "/tracks"
        try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: true)
        let samples = Repository.root.appendingPathComponent("SampleTracks")
        try FileManager.default.copyItem(
            atPath: samples.appendingPathComponent("commute.nmea").path, toPath: tracks + "/2026-09-15.nmea")
        try FileManager.default.createSymbolicLink(
            atPath: tracks + "/2026-09-16.nmea", withDestinationPath: "/etc/passwd")
        let run = try await runLocationd(["timeline", "--rebuild", "--data-dir", directory.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("2026-09-16.nmea") }.count == 1, "\(run.stderr)")
        #expect(lines.contains { $0.contains("symbolic link") }, "\(run.stderr)")
        #expect(run.stderr.contains("rebuilt from 1 recorded days"), "\(run.stderr)")
    }
}
