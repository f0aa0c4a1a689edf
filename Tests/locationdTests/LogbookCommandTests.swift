import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationTimeline
@testable import locationd

/// The logbook (`timeline --csv`), the odometer and `stats`, run as the built binary on a
/// timeline rebuilt from the commute sample (two drives of 2.45 and 2.31 km with a stay
/// between, in Zurich on 2026-09-15), and on a running daemon.
@Suite(.timeLimit(.minutes(5)))
struct LogbookCommandTests {
    /// A data directory whose timeline is rebuilt from the commute sample.
    static func commute() async throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let tracks = directory.path + "/tracks"
        try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repository.root.appendingPathComponent("SampleTracks/commute.nmea").path,
            toPath: tracks + "/2026-09-15.nmea")
        let run = try await runLocationd(["timeline", "--rebuild", "--data-dir", directory.path])
        #expect(run.status == 0, "\(run.stderr)")
        return directory
    }

    /// RFC 4180 fields of one CSV record (quotes doubled inside quoted fields).
    static func fields(_ record: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var previous: Character?
        for character in record {
            if character == "\"" {
                if quoted, previous == "\"" { field.append("\"") }
                quoted.toggle()
            } else if character == ",", !quoted {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
            previous = character
        }
        return fields + [field]
    }

    /// One row per closed trip with local times, the stays' names and the odometer, which
    /// goes on from row to row and ends where it was set.
    @Test func theLogbookHasARowPerTripAndTheOdometer() async throws {
        let directory = try await Self.commute()
        let set = try await runLocationd(["odometer", "set", "1000", "--data-dir", directory.path])
        #expect(set.status == 0, "\(set.stderr)")
        let run = try await runLocationd([
            "timeline", "2026-09-15", "--csv", "--data-dir", directory.path, "--timezone", "Europe/Zurich",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("\r\n"), "\(run.stdout)")
        let records = run.stdout.split(separator: "\r\n")
        try #require(records.count == 3, "\(run.stdout)")
        #expect(Self.fields(records[0]) == TimelineLogbook.header)
        let (first, second) = (Self.fields(records[1]), Self.fields(records[2]))
        #expect(first.count == 9 && second.count == 9)
        #expect(first[0] == "2026-09-15T08:50:00.000+02:00" && first[1] == "2026-09-15T08:52:59.000+02:00")
        // The stays by their GeoNames names, quoted where they hold a comma.
        #expect(first[2] == "" && first[3] == "Zuerich (Kreis 7) / Fluntern, Zurich, CH", "\(first)")
        #expect(second[2] == first[3] && second[3] == "Gockhausen, Zurich, CH", "\(second)")
        #expect(records[2].contains(#","Zuerich (Kreis 7) / Fluntern, Zurich, CH","Gockhausen, Zurich, CH","#))
        #expect(first[4] == "2.450" && second[4] == "2.310" && first[5] == "0:02:59" && first[6] == "motorized")
        // Set after both trips: the last one ends at the reading set, the rows join up.
        #expect(second[8] == "1000.000" && second[7] == first[8] && first[7] == "995.240", "\(records)")
    }

    /// The setting is kept by a rebuild; bad readings are one line and exit 64, and with no
    /// timeline there is nothing to read (66).
    @Test func theOdometerIsKeptAndRefusesBadReadings() async throws {
        let directory = try await Self.commute()
        _ = try await runLocationd(["odometer", "set", "12345.5", "--data-dir", directory.path])
        let rebuilt = try await runLocationd(["timeline", "--rebuild", "--data-dir", directory.path])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let shown = try await runLocationd(["odometer", "--json", "--data-dir", directory.path])
        let answer = try JSONDecoder().decode(OdometerAnswer.self, from: Data(shown.stdout.utf8))
        #expect(answer.km == 12345.5 && answer.setKm == 12345.5, "\(shown.stdout)")
        for bad in ["-1", "nan", "1e12", "12 km", "inf"] {
            let run = try await runLocationd(["odometer", "set", "--data-dir", directory.path, "--", bad])
            #expect(run.status == 64, "\(bad): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(bad): \(run.stderr)")
        }
        let empty = try TemporaryDirectory()
        let none = try await runLocationd(["odometer", "--data-dir", empty.path])
        #expect(none.status == 66, "\(none.stderr)")
    }

    /// `stats` adds up what the timeline shows: its distance, trips and stays, per local day.
    @Test func statsAddUpTheTimeline() async throws {
        let directory = try await Self.commute()
        let run = try await runLocationd([
            "stats", "--month", "2026-09", "--json", "--data-dir", directory.path, "--timezone", "Europe/Zurich",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let periods = try #require(object["periods"] as? [[String: Any]])
        #expect(periods.count == 30)
        let day = try #require(periods.first { $0["period"] as? String == "2026-09-15" })
        #expect(day["distance"] as? Double == 4760 && day["trips"] as? Int == 2 && day["stays"] as? Int == 2, "\(day)")
        #expect(
            periods.filter { $0["period"] as? String != "2026-09-15" }.allSatisfy { $0["distance"] as? Double == 0 })
        let bad = try await runLocationd(["stats", "--by", "year", "--data-dir", directory.path])
        #expect(bad.status == 64 && bad.stderr.contains("--by"), "\(bad.stderr)")
    }

    /// With a daemon running, the odometer is set through it (the data directory's lock keeps
    /// a second writer out) and read back from its file.
    @Test func aRunningDaemonSetsTheOdometer() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--source", "simulated"])
        let set = try await runLocationd(["odometer", "set", "250.25", "--socket", daemon.socketPath])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.hasPrefix("odometer 250.250 km (set to 250.250 km at "), "\(set.stdout)")
        let direct = try await runLocationd(["odometer", "set", "1", "--data-dir", data])
        #expect(direct.status != 0 && direct.stderr.contains("already running"), "\(direct.stderr)")
        let reply = try #require(
            try ControlClient.askPatiently(#"?ODOMETER={"set":"x"};"#, socketPath: daemon.socketPath))
        #expect(reply.contains(#""class":"ERROR""#), "\(reply)")
        _ = try await daemon.stop()
        let stored = try TimelineStore.openReadOnly(at: URL(fileURLWithPath: data + "/timeline.sqlite"))
        #expect(try stored.odometer().setMetres == 250_250)
    }
}
