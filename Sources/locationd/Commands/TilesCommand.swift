import ArgumentParser
import Foundation
import LocationState

/// `locationd tiles`: what the tile log holds, as a list for a tile prefetcher, CSV,
/// GeoJSON, or statistics. Opens the database read-only, so it runs beside the daemon.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "List the map tiles the device has passed through.",
        discussion: """
            Reads DIR/\(TileDatabase.fileName) read-only; a running daemon may go on writing it.
            txt prints one z/x/y per line, ready for a tile prefetcher.
            """
    )

    @OptionGroup var dataDirectory: DataDirectoryOption

    @Option(
        help: ArgumentHelp(
            "Only the tiles at this zoom (\(Tile.zoomRange.lowerBound)-\(Tile.zoomRange.upperBound)).", valueName: "z"))
    var zoom: Int?

    @Option(help: "Output format: txt (z/x/y lines), csv, geojson (tile polygons). Default: txt.")
    var format: TileListFormat?

    @Flag(help: "Per zoom: unique tiles, visits, max square, first and last visit.")
    var stats = false

    func validate() throws {
        if let zoom, !Tile.zoomRange.contains(zoom) {
            throw ValidationError(
                "--zoom must be between \(Tile.zoomRange.lowerBound) and \(Tile.zoomRange.upperBound).")
        }
        if stats, let format, format != .txt {
            throw ValidationError("--stats prints text only; leave out --format.")
        }
    }

    func run() throws {
        let output = BufferedOutput()
        do {
            let database = try TileDatabase.openReadOnly(
                at: dataDirectory.url.appendingPathComponent(TileDatabase.fileName))
            if stats {
                output.write(try TileStatistics.text(of: database, zoom: zoom))
            } else {
                try (format ?? .txt).write(database, zoom: zoom, to: output)
            }
            output.flush()
        } catch {
            throw error.exit()
        }
    }
}
