import ArgumentParser
import Foundation
import LocationState
import LocationStores

/// `locationd tiles`: what the tile log holds, as a list for a tile prefetcher, CSV,
/// GeoJSON, or statistics. Asks the running daemon (``DaemonOrFiles``), else opens the
/// database read-only, so it runs beside the daemon.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "List the map tiles the device has passed through.",
        discussion: """
            Without --data-dir, asks the running daemon (the system's, \(DaemonSockets.systemPath), \
            then your own), which may read a tile log you cannot; when none answers, or with --data-dir, \
            reads DIR/\(TileDatabase.fileName) read-only; a running daemon may go on writing it. \
            txt prints one z/x/y per line, ready for a tile prefetcher. \
            Exit status 64 bad usage; 66 no tile log; 69 daemon or tile log unavailable.
            """
    )

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @Option(
        help: ArgumentHelp(
            "Only the tiles at this zoom (\(Tile.zoomRange.lowerBound)-\(Tile.zoomRange.upperBound)).", valueName: "z"))
    var zoom: Int?

    @Option(help: "Output format: txt (z/x/y lines), csv, geojson (tile polygons). Default: txt.")
    var format: TileListFormat?

    @Flag(help: "Per zoom: unique tiles, visits, max square, first and last visit (in --timezone).")
    var stats = false

    @OptionGroup var timeZone: TimeZoneOption

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
            let days = try stats ? timeZone.days() : .utc
            let source = DaemonOrFiles(socket: socket.path, dataDirectory: dataDirectory)
            let argument = zoom.map { #"={"zoom":\#($0)}"# } ?? ""
            let fallback =
                stats
                ? try askStatistics(source, "?TILESTATS\(argument);", output, days: days)
                : try askList(source, "?TILES\(argument);", output)
            if let fallback {
                try fallback.read { () throws(LocationError) in
                    let database = try TileDatabase.openReadOnly(
                        at: source.directory.appendingPathComponent(TileDatabase.fileName))
                    if stats {
                        output.write(try TileStatistics.read(database, zoom: zoom).text(zoom: zoom, days: days))
                    } else {
                        try (format ?? .txt).write(database, zoom: zoom, to: output)
                    }
                }
            }
            output.flush()
        } catch {
            throw error.exit()
        }
    }

    /// The list from the daemon's TILE lines, checked against the count its TILES line gives.
    private func askList(_ source: DaemonOrFiles, _ request: String, _ output: BufferedOutput) throws(LocationError)
        -> DaemonOrFiles.Fallback?
    {
        let format = format ?? .txt
        var count = 0
        return try source.ask(request) { text throws(LocationError) in
            if count == 0 { output.write(format.header) }
            if let tile = TileLine(jsonLine: text) {
                output.write(format.entry(tile, first: count == 0))
                count += 1
                return true
            }
            guard let end = try? JSONDecoder().decode(TilesEnd.self, from: Data(text.utf8)), end.class == "TILES"
            else { throw DaemonOrFiles.unexpected(text) }
            guard end.count == count else {
                throw .unavailable("the daemon's answer holds \(count) tiles, not the \(end.count) it says")
            }
            output.write(format.footer)
            return false
        }
    }

    private func askStatistics(
        _ source: DaemonOrFiles, _ request: String, _ output: BufferedOutput, days: LocalDays
    ) throws(LocationError) -> DaemonOrFiles.Fallback? {
        try source.ask(request) { text throws(LocationError) in
            guard text.hasPrefix(#"{"class":"TILESTATS""#),
                let statistics = try? JSONDecoder().decode(TileStatistics.self, from: Data(text.utf8))
            else { throw DaemonOrFiles.unexpected(text) }
            output.write(statistics.text(zoom: zoom, days: days))
            return false
        }
    }

    private struct TilesEnd: Decodable {
        let `class`: String
        let count: Int
    }
}
