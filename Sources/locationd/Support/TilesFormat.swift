import ArgumentParser
import Foundation
import LocationState

/// How `locationd tiles` prints the tile list.
enum TileListFormat: String, ExpressibleByArgument, CaseIterable {
    /// One `z/x/y` per line: the tile paths a prefetcher asks a tile server for.
    case txt
    /// `zoom,x,y,first_seen,last_seen,visits` with a header line; times in ISO 8601 UTC.
    case csv
    /// A GeoJSON FeatureCollection with one polygon per tile and its record as properties.
    case geojson

    /// Writes the tiles of `database` (at `zoom`, or every zoom) to `output` as they
    /// come from its cursor: memory stays flat whatever the size of the log. The
    /// output ends in a newline (empty for no records in txt).
    func write(_ database: TileDatabase, zoom: Int?, to output: BufferedOutput) throws(LocationError) {
        output.write(header)
        var first = true
        try database.forEachTile(zoom: zoom) { record in
            output.write(entry(record, first: first))
            first = false
        }
        output.write(footer)
    }

    /// What comes before the first tile.
    var header: String {
        switch self {
        case .txt: ""
        case .csv: "zoom,x,y,first_seen,last_seen,visits\n"
        case .geojson: "{\"type\":\"FeatureCollection\",\"features\":[\n"
        }
    }

    /// One tile; `first` for the first one of the list (GeoJSON separates the others with a comma).
    func entry(_ record: TileRecord, first: Bool) -> String {
        let tile = record.tile
        return switch self {
        case .txt:
            "\(tile)\n"
        case .csv:
            "\(tile.zoom),\(tile.x),\(tile.y),\(UTCCalendar.iso8601(record.firstSeen)),"
                + "\(UTCCalendar.iso8601(record.lastSeen)),\(record.visits)\n"
        case .geojson:
            (first ? "" : ",\n") + feature(record)
        }
    }

    /// What comes after the last tile.
    var footer: String { self == .geojson ? "\n]}\n" : "" }

    /// One tile as a GeoJSON Feature: its square as a polygon, counter-clockwise as RFC 7946 asks.
    private func feature(_ record: TileRecord) -> String {
        let tile = record.tile
        let bounds = tile.bounds
        let ring = [
            (bounds.minLon, bounds.minLat), (bounds.maxLon, bounds.minLat), (bounds.maxLon, bounds.maxLat),
            (bounds.minLon, bounds.maxLat), (bounds.minLon, bounds.minLat),
        ].map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        return """
            {"type":"Feature","id":"\(tile)","geometry":{"type":"Polygon","coordinates":[[\(ring)]]},\
            "properties":{"z":\(tile.zoom),"x":\(tile.x),"y":\(tile.y),"firstSeen":"\(UTCCalendar.iso8601(record.firstSeen))",\
            "lastSeen":"\(UTCCalendar.iso8601(record.lastSeen))","visits":\(record.visits)}}
            """
    }
}

/// `locationd tiles --stats`: one line per zoom.
enum TileStatistics {
    /// `zoom 14: 120 tiles, 131 visits, max square 3 at 14/8800/5373, first 2026-…Z, last 2026-…Z`
    /// per zoom, or a line saying the log is empty.
    static func text(of database: TileDatabase, zoom: Int?) throws(LocationError) -> String {
        let summaries = try database.summaries().filter { zoom == nil || $0.zoom == zoom }
        guard !summaries.isEmpty else { return "no tiles logged\(zoom.map { " at zoom \($0)" } ?? "")\n" }
        var lines: [String] = []
        for summary in summaries {
            let square = try database.maxSquare(zoom: summary.zoom)
            let squareText = square.map { "max square \($0.size) at \($0.origin)" } ?? "max square 0"
            lines.append(
                "zoom \(summary.zoom): \(summary.tiles) tiles, \(summary.visits) visits, \(squareText), "
                    + "first \(UTCCalendar.iso8601(summary.firstSeen)), last \(UTCCalendar.iso8601(summary.lastSeen))\n")
        }
        return lines.joined()
    }
}

