import Foundation
import LocationRegions
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// `locationd replay --regions` and `locationd regions`, as a user runs them.
@Suite(.timeLimit(.minutes(10)))
struct RegionCommandTests {
    static func regionFile(_ features: String...) throws -> String {
        try temporaryFile(
            Array((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").utf8),
            suffix: ".geojson")
    }

    /// The REGION lines of a JSON replay, each with the TPV line before it.
    static func transitions(_ stdout: String) -> [(event: String, region: String, tpvTime: String, time: String)] {
        let lines = stdout.split(separator: "\n").map(String.init)
        return lines.indices.compactMap { index in
            guard lines[index].hasPrefix(#"{"class":"REGION""#), index > 0,
                let event = try? JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any],
                let tpv = try? JSONSerialization.jsonObject(with: Data(lines[index - 1].utf8)) as? [String: Any]
            else { return nil }
            return (
                event["event"] as? String ?? "", event["region"] as? String ?? "", tpv["time"] as? String ?? "",
                event["time"] as? String ?? ""
            )
        }
    }

    /// Crossing the antimeridian (a polygon written with longitudes 179.995 and
    /// -179.995) and the North Pole (a circle on it, a polar cap polygon): each
    /// region entered and left exactly once, each event after the fix that made it.
    @Test(arguments: [
        (
            "antimeridian.nmea",
            #"{"type":"Feature","id":"strip","properties":{"name":"Strip"},"geometry":{"type":"Polygon","coordinates":[[[179.995,-16.81],[-179.995,-16.81],[-179.995,-16.79],[179.995,-16.79],[179.995,-16.81]]]}}"#,
            ["enter strip", "leave strip"]
        ),
        (
            "north-pole.nmea",
            #"{"type":"Feature","id":"pole","properties":{"name":"Pole","radius":100},"geometry":{"type":"Point","coordinates":[0,90]}},{"type":"Feature","id":"cap","properties":{"name":"Cap"},"geometry":{"type":"Polygon","coordinates":[[[0,89.999],[90,89.999],[180,89.999],[-90,89.999],[0,89.999]]]}}"#,
            ["enter cap", "enter pole", "leave pole", "leave cap"]
        ),
    ])
    func aSampleTrackEntersAndLeavesOnce(track: String, features: String, expected: [String]) async throws {
        let regions = try Self.regionFile(features)
        defer { try? FileManager.default.removeItem(atPath: regions) }
        let run = try await runLocationd([
            "replay", Repository.sampleTrack(track), "--speed", "max", "--format", "json", "--regions", regions,
        ])
        #expect(run.status == 0)
        let transitions = Self.transitions(run.stdout)
        #expect(transitions.map { "\($0.event) \($0.region)" } == expected)
        #expect(transitions.allSatisfy { $0.tpvTime == $0.time })
    }

    @Test func textFormatPrintsRegionLines() async throws {
        let regions = try Self.regionFile(
            #"{"type":"Feature","id":"pond","properties":{"name":"Pond","radius":30},"geometry":{"type":"Point","coordinates":[13.3521,52.5139]}}"#
        )
        defer { try? FileManager.default.removeItem(atPath: regions) }
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--regions", regions,
        ])
        #expect(run.status == 0)
        let regionLines = run.stdout.split(separator: "\n").filter { $0.contains(" REGION ") }
        #expect(
            regionLines == [
                #"2026-05-14T09:01:37.000Z REGION enter pond "Pond" 52.514136 13.351924"#,
                #"2026-05-14T09:02:38.000Z REGION leave pond "Pond" 52.513430 13.352444"#,
            ])
    }

    @Test func aBadRegionFileIsExit64WithOneLineAndAMissingOne66() async throws {
        let bad = try Self.regionFile(
            #"{"type":"Feature","properties":{"name":"Zero","radius":0},"geometry":{"type":"Point","coordinates":[1,2]}}"#
        )
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--regions", bad,
        ])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr
                == "locationd: \(bad): feature 1 (\"Zero\"): radius must be more than 0 and at most 1000000 metres, not 0.0\n"
        )
        let missing = try await runLocationd([
            "regions", "--regions", "/nonexistent/r.geojson", "--data-dir", NSTemporaryDirectory() + "none-\(UUID())",
        ])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasSuffix("locationd: /nonexistent/r.geojson: no such file; check the path.\n"))
    }

    /// Without a daemon, `locationd regions` reads the membership the daemon stored.
    @Test func regionsListsTheStoredMembership() async throws {
        let regions = try Self.regionFile(
            #"{"type":"Feature","id":"home","properties":{"name":"Home","radius":100},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}"#,
            #"{"type":"Feature","id":"work","properties":{"name":"Work","radius":100},"geometry":{"type":"Point","coordinates":[13.5,52.5]}}"#
        )
        defer { try? FileManager.default.removeItem(atPath: regions) }
        let directory = NSTemporaryDirectory() + "locationd-regions-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let monitor = try RegionMonitor(regions: try RegionSet.load(geoJSONFile: regions), directory: directory)
        monitor.update(with: Location(time: Date(), mode: .threeD, lat: 52.6, lon: 13.4, source: .gpsd))
        monitor.update(with: Location(time: Date(), mode: .threeD, lat: 52.5, lon: 13.4, source: .gpsd))
        try monitor.flush()
        let run = try await runLocationd(["regions", "--regions", regions, "--data-dir", directory, "--json"])
        #expect(run.status == 0)
        #expect(
            run.stdout
                == #"{"class":"REGIONS","file":"\#(regions)","from":"store","regions":[{"id":"home","name":"Home","type":"circle","inside":true},{"id":"work","name":"Work","type":"circle","inside":false}]}"#
                + "\n")
        let text = try await runLocationd(["regions", "--regions", regions, "--data-dir", directory])
        #expect(text.stdout.hasPrefix("in    home  \"Home\"  circle 100 m"))
    }

    /// Without a daemon and without a region file there is nothing to list: one line
    /// that says both, and 64.
    @Test func noDaemonAndNoRegionFileIsOneLine() async throws {
        let directory = try TemporaryDirectory()
        let run = try await runLocationd(["regions", "--data-dir", directory.path])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(
            run.stderr.hasPrefix("locationd: no daemon answers (yours on \(directory.path)/control.sock)")
                && run.stderr.hasSuffix("name a region file with --regions FILE\n"), "\(run.stderr)")
    }
}
