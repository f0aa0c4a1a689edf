import Foundation
import LocationState
import LocationStores

/// Per zoom: the tiles, visits, largest square, first and last visit; what `locationd tiles
/// --stats` prints, `?TILESTATS;` and `GET /api/v1/tiles/stats` answer.
struct TileStatistics: Codable, Sendable, Equatable {
    struct Zoom: Codable, Sendable, Equatable {
        struct Square: Codable, Sendable, Equatable {
            /// Side in tiles; 0 (and no origin) when no tile was seen.
            let size: Int
            let x: Int?
            let y: Int?
        }

        let zoom: Int
        let tiles: Int
        let visits: Int
        let maxSquare: Square
        /// ISO 8601 UTC.
        let firstSeen: String
        let lastSeen: String
    }

    let zooms: [Zoom]

    /// The statistics of `database`, of every zoom or only `zoom`.
    static func read(_ database: TileDatabase, zoom: Int? = nil) throws(LocationError) -> TileStatistics {
        var zooms: [Zoom] = []
        for summary in try database.summaries() where zoom == nil || summary.zoom == zoom {
            let square = try database.maxSquare(zoom: summary.zoom)
            zooms.append(
                Zoom(
                    zoom: summary.zoom, tiles: summary.tiles, visits: summary.visits,
                    maxSquare: .init(size: square?.size ?? 0, x: square?.origin.x, y: square?.origin.y),
                    firstSeen: UTCCalendar.iso8601(summary.firstSeen), lastSeen: UTCCalendar.iso8601(summary.lastSeen)))
        }
        return TileStatistics(zooms: zooms)
    }

    /// `zoom 14: 120 tiles, 131 visits, max square 3 at 14/8800/5373, first 2026-…Z, last 2026-…Z`
    /// per zoom, or a line saying the log (at `zoom`, when asked) is empty.
    func text(zoom: Int?) -> String {
        guard !zooms.isEmpty else { return "no tiles logged\(zoom.map { " at zoom \($0)" } ?? "")\n" }
        return zooms.map { entry in
            let square = entry.maxSquare
            let squareText =
                if let x = square.x, let y = square.y, square.size > 0 {
                    "max square \(square.size) at \(entry.zoom)/\(x)/\(y)"
                } else { "max square 0" }
            return "zoom \(entry.zoom): \(entry.tiles) tiles, \(entry.visits) visits, \(squareText), "
                + "first \(entry.firstSeen), last \(entry.lastSeen)\n"
        }.joined()
    }
}
