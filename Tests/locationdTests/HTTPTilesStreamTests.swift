import Foundation
import LocationState
import LocationStores
import LocationTestSupport
import Testing

/// `GET /api/v1/tiles` on a large tile log: streamed as it is read, the same bytes as
/// `locationd tiles` for the same zoom and format, without the daemon holding the list.
@Suite(.timeLimit(.minutes(5)))
struct HTTPTilesStreamTests {
    /// A data directory whose tile log holds 90,000 tiles at zoom 17 (a 300 x 300
    /// block) and 2,500 at zoom 14.
    static func largeTileLog(in directory: borrowing TemporaryDirectory) throws -> String {
        let data = directory.path + "/data"
        let database = try TileDatabase.open(
            at: URL(fileURLWithPath: data).appendingPathComponent(TileDatabase.fileName))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var records: [TileRecord] = []
        for (zoom, origin, side) in [(17, (70_200, 42_800), 300), (14, (8_790, 5_360), 50)] {
            for x in 0..<side {
                for y in 0..<side {
                    let seen = start.addingTimeInterval(Double(x * side + y))
                    records.append(
                        TileRecord(
                            tile: Tile(zoom: zoom, x: origin.0 + x, y: origin.1 + y)!, firstSeen: seen,
                            lastSeen: seen.addingTimeInterval(0.25), visits: 1 + (x + y) % 7))
                }
            }
        }
        try database.add(records)
        return data
    }

    /// The peak resident memory of process `pid` (VmHWM), bytes.
    static func peakResidentBytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1024
    }

    @Test func aLargeTileListIsStreamedWithTheCLIsBytes() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.largeTileLog(in: directory)
        // A gpsd that is not there: the daemon serves and logs no tile while the test compares.
        let daemon = try await DaemonProcess(
            dataDirectory: data,
            arguments: ["--source", "gpsd", "--gpsd", "127.0.0.1:\(try GPSFake.freeLoopbackPort())"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let peakBefore = try Self.peakResidentBytes(daemon.process.processIdentifier)
        var largest = 0
        for (zoom, format) in [(17, "geojson"), (nil, "csv"), (14, "txt"), (nil, "txt"), (5, "geojson")]
            as [(Int?, String)]
        {
            let query = "format=\(format)" + (zoom.map { "&zoom=\($0)" } ?? "")
            let answer = try await client.get("/api/v1/tiles?\(query)")
            #expect(answer.status == 200)
            #expect(answer.headers["transfer-encoding"] == "chunked", "\(answer.headers)")
            let cli = try await runLocationd(
                ["tiles", "--data-dir", data, "--format", format] + (zoom.map { ["--zoom", String($0)] } ?? []))
            #expect(cli.status == 0, "\(cli.stderr)")
            #expect(
                answer.body == cli.stdout, "\(query): \(answer.body.utf8.count) bytes, the CLI \(cli.stdout.utf8.count)"
            )
            largest = max(largest, answer.body.utf8.count)
        }
        // The answers are what the log holds (the zoom-17 GeoJSON is some 30 MB) …
        #expect(largest > 25_000_000, "\(largest)")
        let csv = try await client.get("/api/v1/tiles?format=csv")
        #expect(csv.body.split(separator: "\n").count == 1 + 90_000 + 2_500)
        // … and the daemon never held one whole: its peak resident memory grew by far less.
        let growth = try Self.peakResidentBytes(daemon.process.processIdentifier) - peakBefore
        #expect(growth < largest / 2, "the daemon's peak resident memory grew by \(growth) bytes")
        #expect(try await daemon.stop().status == 0)
    }
}
