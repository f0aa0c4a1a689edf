import Foundation
import LocationState
import LocationStores
import LocationTestSupport
import LocationTimeline
import Logging
import Testing

/// Local days where a user meets them: `locationd timeline DAY`, `export DAY`, `tiles
/// --stats` and the daemon's `GET /api/v1/timeline?day=`, in the zone of `--timezone`, of
/// TZ, or of the daemon's setting; a zone that is none is one line and exit status 64.
@Suite(.timeLimit(.minutes(5)))
struct LocalDaysCommandTests {
    /// Parked in Zurich from 23:30 to 00:45 local time: 22:30 to 23:45 UTC, one UTC day.
    static let stay = Stay(
        start: Date(timeIntervalSince1970: 1_795_473_000), end: Date(timeIntervalSince1970: 1_795_477_500),
        latitude: 47.37, longitude: 8.54, radius: 9, fixes: 76)

    /// A data directory whose timeline holds ``stay``.
    static func timeline(in directory: borrowing TemporaryDirectory) throws -> String {
        try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: Logger(label: "test"))
            .record([.stayClosed(stay)], tracker: nil)
        return directory.path
    }

    /// The stay over Zurich's midnight is on both local days, in local time, dated; its
    /// JSON keeps UTC. With TZ=Asia/Kolkata it lies early on the 24th and not on the 23rd.
    @Test func timelineCountsDaysInTheZoneOfTheFlagOrTZ() async throws {
        #expect(UTCCalendar.iso8601(Self.stay.start) == "2026-11-23T22:30:00.000Z")
        let directory = try TemporaryDirectory()
        let data = try Self.timeline(in: directory)
        for day in ["2026-11-23", "2026-11-24"] {
            let run = try await runLocationd(["timeline", "--data-dir", data, "--timezone", "Europe/Zurich", day])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("Timeline of \(day) (Europe/Zurich)\n"), "\(run.stdout)")
            #expect(run.stdout.contains("2026-11-23 23:30–2026-11-24 00:45  stay"), "\(run.stdout)")
        }
        let json = try await runLocationd(
            ["timeline", "--data-dir", data, "--timezone", "Europe/Zurich", "--json", "2026-11-24"])
        #expect(json.stdout.contains(#""start":"2026-11-23T22:30:00.000Z""#), "\(json.stdout)")

        let kolkata = ["TZ": "Asia/Kolkata"]
        let on24 = try await runLocationd(["timeline", "--data-dir", data, "2026-11-24"], environment: kolkata)
        #expect(on24.stdout.hasPrefix("Timeline of 2026-11-24 (Asia/Kolkata)\n"), "\(on24.stdout) \(on24.stderr)")
        #expect(on24.stdout.contains("\n04:00–05:15  stay"), "\(on24.stdout)")
        let on23 = try await runLocationd(["timeline", "--data-dir", data, "2026-11-23"], environment: kolkata)
        #expect(on23.stdout.contains("nothing recorded"), "\(on23.stdout)")
    }

    /// The recorded walk of 2026-05-14 09:00 UTC is the evening of the 13th in Honolulu:
    /// `export` takes that day from the file of the 14th; the flag beats TZ.
    @Test func exportReadsTheLocalDayFromTheUTCFiles() async throws {
        let directory = try TemporaryDirectory()
        let data = try ExportCommandTests.recordedData(in: directory)
        let honolulu = ["TZ": "Pacific/Honolulu"]
        let evening = try await runLocationd(["export", "--data-dir", data, "2026-05-13"], environment: honolulu)
        #expect(evening.status == 0, "\(evening.stderr)")
        #expect(evening.stdout.components(separatedBy: "<trkpt").count - 1 == 300)
        let utc = try await runLocationd(
            ["export", "--data-dir", data, "--timezone", "UTC", "2026-05-13"], environment: honolulu)
        #expect(utc.status == 66, "\(utc.stderr)")
        #expect(utc.stderr == "locationd: no track was recorded on 2026-05-13\n")
    }

    /// `tiles --stats` prints its first and last visit in the zone, with the offset.
    @Test func tileStatisticsShowLocalTimes() async throws {
        let directory = try TemporaryDirectory()
        let seen = Date(timeIntervalSince1970: 1_800_000_000)
        try TileDatabase.open(at: URL(fileURLWithPath: directory.path + "/" + TileDatabase.fileName)).add([
            TileRecord(tile: Tile(zoom: 14, x: 10, y: 20)!, firstSeen: seen, lastSeen: seen, visits: 1)
        ])
        let run = try await runLocationd(
            ["tiles", "--data-dir", directory.path, "--stats", "--timezone", "Pacific/Chatham"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("first 2027-01-15T21:45:00.000+13:45"), "\(run.stdout)")
    }

    /// A daemon set to Asia/Kolkata answers `day=` with that zone's day, its bounds with
    /// the offset, the stay's times in UTC.
    @Test func theDaemonsDayIsItsZones() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.timeline(in: directory)
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "simulated"],
            environment: ["LOCATIOND_TIMEZONE": "Asia/Kolkata"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let answer = try await client.get("/api/v1/timeline?day=2026-11-24")
        #expect(answer.status == 200)
        #expect(
            answer.body.hasPrefix(
                #"{"timezone":"Asia/Kolkata","day":"2026-11-24","from":"2026-11-24T00:00:00.000+05:30","#),
            "\(answer.body)")
        #expect(answer.body.contains(#""start":"2026-11-23T22:30:00.000Z""#), "\(answer.body)")
        let before = try await client.get("/api/v1/timeline?day=2026-11-23")
        #expect(!before.body.contains(#""class":"STAY""#), "\(before.body)")
    }

    /// The page counts days and shows times in the daemon's zone, whatever the browser's:
    /// the picker starts at the local day of the fix, and the stay of Zurich's midnight
    /// is early on the 24th in Kolkata.
    @Test func thePageShowsTheDaemonsLocalDay() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.timeline(in: directory)
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "simulated", "--timezone", "Asia/Kolkata"])
        let browser = try await WebDriver()
        try await browser.open("http://127.0.0.1:\(try await daemon.httpPort())/")
        try await browser.waitFor(
            "a fix and the picker's day", #"return !!(S.fix && S.fix.time) && $("day").value !== ''"#)
        let picked = try #require(
            try await browser.run(#"return [$("day").value, S.fix.time, document.body.dataset.timezone]"#) as? [String])
        let fixTime = try #require(UTCCalendar.parseISO8601(picked[1]))
        #expect(picked[0] == LocalDays(named: "Asia/Kolkata")?.day(of: fixTime), "\(picked)")
        #expect(picked[2] == "Asia/Kolkata")
        _ = try await browser.run(#"$("day").value = "2026-11-24"; $("day").onchange(); return true"#)
        try await browser.waitFor("the stay", #"return $("timeline").dataset.entries === "1""#)
        let when = try #require(
            try await browser.run(##"return document.querySelector("#timeline li.stay .when").textContent"##)
                as? String)
        #expect(when == "04:00–05:15", "\(when)")
        let distance = try #require(try await browser.run(#"return $("dayDistance").textContent"#) as? String)
        #expect(distance.hasSuffix("times in Asia/Kolkata"), "\(distance)")
    }

    /// A zone that is none: one line, exit status 64, for the daemon and the commands alike.
    @Test func aBadZoneIsOneLineAndExit64() async throws {
        try await expectRunRefuses(
            ["--timezone", "Europe/Zurch"],
            saying: "--timezone: timezone must be a time zone name such as Europe/Zurich or UTC, not 'Europe/Zurch'")
        let directory = try TemporaryDirectory()
        let data = try Self.timeline(in: directory)
        let runs = [
            try await runLocationd(["timeline", "--data-dir", data, "--timezone", "Mars/Olympus_Mons"]),
            try await runLocationd(
                ["export", "--data-dir", data, "2026-11-23"], environment: ["TZ": "Mars/Olympus_Mons"]),
            try await runLocationd(["tiles", "--data-dir", data, "--stats"], environment: ["TZ": "CET-1CEST"]),
        ]
        for run in runs {
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }
}
