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

    /// An ISO 8601 time of the answer in `days`' zone; as it is when it cannot be read.
    private static func local(_ text: String, _ days: LocalDays) -> String {
        UTCCalendar.parseISO8601(text).map(days.iso8601) ?? text
    }

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

    /// `zoom 14: 120 tiles, 131 visits, max square 3 at 14/8800/5373, first 2026-…+01:00, last 2026-…+01:00`
    /// per zoom, times in `days`' zone with its offset (`Z` in UTC), or a line saying the log
    /// (at `zoom`, when asked) is empty.
    func text(zoom: Int?, days: LocalDays) -> String {
        guard !zooms.isEmpty else { return "no tiles logged\(zoom.map { " at zoom \($0)" } ?? "")\n" }
        return zooms.map { entry in
            let square = entry.maxSquare
            let squareText =
                if let x = square.x, let y = square.y, square.size > 0 {
                    "max square \(square.size) at \(entry.zoom)/\(x)/\(y)"
                } else { "max square 0" }
            return "zoom \(entry.zoom): \(entry.tiles) tiles, \(entry.visits) visits, \(squareText), "
                + "first \(Self.local(entry.firstSeen, days)), last \(Self.local(entry.lastSeen, days))\n"
        }.joined()
    }
}
