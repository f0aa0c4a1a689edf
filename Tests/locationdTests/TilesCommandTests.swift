import Foundation
import LocationState
import LocationStores
import LocationTestSupport
import Testing

private let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

private func record(_ zoom: Int, _ x: Int, _ y: Int, visits: Int = 1) -> TileRecord {
    TileRecord(
        tile: Tile(zoom: zoom, x: x, y: y)!, firstSeen: start.addingTimeInterval(Double(x)),
        lastSeen: start.addingTimeInterval(Double(x) + 0.5), visits: visits)
}

/// A data directory whose tile log holds a 2 x 2 block and a lone tile at zoom 14, and one tile at 17.
private func dataDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "locationd-tiles-\(UUID().uuidString)")
    let database = try TileDatabase.open(at: directory.appendingPathComponent(TileDatabase.fileName))
    try database.add([
        record(14, 11, 21), record(14, 10, 20, visits: 3), record(14, 11, 20), record(14, 10, 21), record(14, 15, 18),
        record(17, 70406, 42987, visits: 2),
    ])
    return directory
}

@Test(.timeLimit(.minutes(10))) func tilesPrintsOnePathPerLineForAPrefetcher() async throws {
    let directory = try dataDirectory()
    let run = try await runLocationd(["tiles", "--data-dir", directory.path])
    #expect(run.status == 0)
    #expect(run.stdout == "14/10/20\n14/10/21\n14/11/20\n14/11/21\n14/15/18\n17/70406/42987\n")

    let zoomed = try await runLocationd(["tiles", "--data-dir", directory.path, "--zoom", "17", "--format", "txt"])
    #expect(zoomed.stdout == "17/70406/42987\n")
}

@Test(.timeLimit(.minutes(10))) func tilesPrintsCSVWithTimesInUTC() async throws {
    let run = try await runLocationd([
        "tiles", "--data-dir", try dataDirectory().path, "--zoom", "14", "--format", "csv",
    ])
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.first == "zoom,x,y,first_seen,last_seen,visits")
    #expect(lines.dropFirst().first == "14,10,20,2027-01-15T08:00:10.000Z,2027-01-15T08:00:10.500Z,3")
    #expect(lines.count == 6)
}

@Test(.timeLimit(.minutes(10))) func tilesPrintsGeoJSONPolygons() async throws {
    let run = try await runLocationd([
        "tiles", "--data-dir", try dataDirectory().path, "--zoom", "17", "--format", "geojson",
    ])
    #expect(run.status == 0)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    #expect(json["type"] as? String == "FeatureCollection")
    let features = try #require(json["features"] as? [[String: Any]])
    #expect(features.count == 1)
    let geometry = try #require(features.first?["geometry"] as? [String: Any])
    #expect(geometry["type"] as? String == "Polygon")
    let ring = try #require((geometry["coordinates"] as? [[[Double]]])?.first)
    // Tile 17/70406/42987: west 13.37585449°, east 13.37860107°, south 52.51622086 … north 52.51789223 (python3, OSM formula).
    #expect(ring.count == 5 && ring.first == ring.last)
    let longitudes = ring.map { $0[0] }
    let latitudes = ring.map { $0[1] }
    #expect(abs(longitudes.min()! - 13.37585449) < 1e-8 && abs(longitudes.max()! - 13.37860107) < 1e-8)
    #expect(abs(latitudes.min()! - 52.51622086) < 1e-8 && abs(latitudes.max()! - 52.51789223) < 1e-8)
    let properties = try #require(features.first?["properties"] as? [String: Any])
    #expect(properties["visits"] as? Int == 2)
    #expect(properties["z"] as? Int == 17)
}

@Test(.timeLimit(.minutes(10))) func tilesStatsGivesCountsMaxSquareAndTimesPerZoom() async throws {
    let run = try await runLocationd(["tiles", "--data-dir", try dataDirectory().path, "--stats"])
    #expect(run.status == 0)
    #expect(
        run.stdout == """
            zoom 14: 5 tiles, 7 visits, max square 2 at 14/10/20, first 2027-01-15T08:00:10.000Z, last 2027-01-15T08:00:15.500Z
            zoom 17: 1 tiles, 2 visits, max square 1 at 17/70406/42987, first 2027-01-16T03:33:26.000Z, last 2027-01-16T03:33:26.500Z

            """)
}

@Test(.timeLimit(.minutes(10))) func tilesWithoutADatabaseSaysSoAndExits66() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-none-\(UUID().uuidString)")
    let run = try await runLocationd(["tiles", "--data-dir", directory.path])
    #expect(run.status == 66)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("no tile database"))
    #expect(run.stderr.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: directory.path))
}

@Test(.timeLimit(.minutes(10))) func tilesOnACorruptDatabaseFailsAndLeavesItAlone() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bad-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent(TileDatabase.fileName)
    let garbage = Data(repeating: 0x42, count: 4096)
    try garbage.write(to: file)

    let run = try await runLocationd(["tiles", "--data-dir", directory.path, "--stats"])
    #expect(run.status == 66)
    #expect(run.stderr.contains("not a usable database"))
    #expect(run.stderr.split(separator: "\n").count == 1)
    #expect(try Data(contentsOf: file) == garbage)
}

/// An empty file where the tile log should be (SQLite takes it for an empty database) is
/// one without the table: said so, not taken for a write error (exit 73).
@Test(.timeLimit(.minutes(10))) func tilesOnAnEmptyFileSaysItHasNoTileTable() async throws {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("locationd-empty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent(TileDatabase.fileName)
    try Data().write(to: file)

    for arguments in [[String](), ["--stats"]] {
        let run = try await runLocationd(["tiles", "--data-dir", directory.path] + arguments)
        #expect(run.status == 66, "\(arguments)")
        #expect(run.stderr.contains("not a usable database (it has no locationd tile table)"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
    #expect(try Data(contentsOf: file).isEmpty)
}

@Test(
    .timeLimit(.minutes(10)),
    arguments: [
        ["--zoom", "23"],
        ["--format", "kml"],
        ["--stats", "--format", "csv"],
    ])
func tilesRejectsBadFlagsWithUsageStatus(flags: [String]) async throws {
    let run = try await runLocationd(["tiles", "--data-dir", try dataDirectory().path] + flags)
    #expect(run.status == 64)
    #expect(run.stdout.isEmpty)
}
