import Foundation
import LocationTestSupport
import Testing

/// `locationd replay FILE --data-dir DIR` runs the daemon's stores on the replayed fixes.
@Suite(.timeLimit(.minutes(10)))
struct ReplayDataDirectoryTests {
    /// The OSM slippy-map tile of a point, written out here apart from the code under test.
    static func tile(lat: Double, lon: Double, zoom: Int) -> String {
        let n = Double(1 << zoom)
        let x = Int(((lon + 180) / 360 * n).rounded(.down))
        let radians = lat * .pi / 180
        let y = Int(((1 - log(tan(radians) + 1 / cos(radians)) / .pi) / 2 * n).rounded(.down))
        return "\(zoom)/\(x)/\(y)"
    }

    @Test func aReplayedTrackFillsTheTileLogAndTheLastFix() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let replay = try await runLocationd([
            "replay", Repository.sampleTrack("drive.nmea"), "--speed", "max", "--format", "json", "--data-dir", data,
        ])
        #expect(replay.status == 0)
        let fixes = try replay.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(fixes.count > 100)

        let tiles = try await runLocationd(["tiles", "--data-dir", data, "--zoom", "17"])
        #expect(tiles.status == 0)
        let logged = Set(tiles.stdout.split(separator: "\n").map(String.init))
        for fix in fixes {
            let lat = try #require(fix["lat"] as? Double)
            let lon = try #require(fix["lon"] as? Double)
            #expect(logged.contains(Self.tile(lat: lat, lon: lon, zoom: 17)), "no tile for \(lat), \(lon)")
        }

        let last = try await runLocationd(["last", "--data-dir", data, "--json"])
        #expect(last.status == 3)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(last.stdout.utf8)) as? [String: Any])
        #expect(answer["state"] as? String == "restored")
        #expect(answer["time"] as? String == fixes.last?["time"] as? String)
        #expect(answer["lat"] as? Double == fixes.last?["lat"] as? Double)
    }

    /// The replay feeds the daemon's own list of history listeners: the timeline too, with
    /// the stays and trips `replay --timeline` prints for the same track.
    @Test func aReplayedTrackFillsTheTimeline() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let track = Repository.sampleTrack("commute.nmea")
        let printed = try await runLocationd(["replay", track, "--speed", "max", "--timeline", "--format", "json"])
        #expect(printed.status == 0)
        let replay = try await runLocationd(["replay", track, "--speed", "max", "--data-dir", data])
        #expect(replay.status == 0, "\(replay.stderr)")
        let timeline = try await runLocationd(["timeline", "--data-dir", data, "2026-09-15", "--json"])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        // The trips, as (start, end, distance); the stored timeline also has the stay open at
        // the end, which `--timeline` reports in its summary line instead.
        func trips(_ lines: String) throws -> [String] {
            try lines.split(separator: "\n").compactMap { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["class"] as? String == "TRIP"
                else { return nil }
                return "\(object["start"] ?? "") \(object["end"] ?? "") \(object["distance"] ?? "")"
            }
        }
        let stored = try trips(timeline.stdout)
        #expect(stored.count == 2, "\(timeline.stdout)")
        #expect(stored == (try trips(printed.stdout)))
        #expect(timeline.stdout.contains(#""class":"STAY""#), "\(timeline.stdout)")
    }

    @Test func aReplayDoesNotWriteIntoARunningDaemonsDirectory() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let replay = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--data-dir", daemon.dataDirectory,
        ])
        #expect(replay.status == 69)
        #expect(replay.stderr.contains("already running"))
        #expect(try await daemon.stop().status == 0)
    }
}
