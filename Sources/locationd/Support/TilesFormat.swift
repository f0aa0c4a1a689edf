import ArgumentParser
import Foundation
import LocationState
import LocationStores

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
            output.write(entry(TileLine(record), first: first))
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
        entry(TileLine(record), first: first)
    }

    /// One tile as the control socket's TILE object has it: its times as written there,
    /// so that a list asked of the daemon prints as the one read from the file.
    func entry(_ line: TileLine, first: Bool) -> String {
        switch self {
        case .txt:
            "\(line.tile)\n"
        case .csv:
            "\(line.tile.zoom),\(line.tile.x),\(line.tile.y),\(line.firstSeen),\(line.lastSeen),\(line.visits)\n"
        case .geojson:
            (first ? "" : ",\n") + feature(line)
        }
    }

    /// What comes after the last tile.
    var footer: String { self == .geojson ? "\n]}\n" : "" }

    /// One tile as a GeoJSON Feature: its square as a polygon, counter-clockwise as RFC 7946 asks.
    private func feature(_ line: TileLine) -> String {
        let tile = line.tile
        let bounds = tile.bounds
        let ring = [
            (bounds.minLon, bounds.minLat), (bounds.maxLon, bounds.minLat), (bounds.maxLon, bounds.maxLat),
            (bounds.minLon, bounds.maxLat), (bounds.minLon, bounds.minLat),
        ].map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        return """
            {"type":"Feature","id":"\(tile)","geometry":{"type":"Polygon","coordinates":[[\(ring)]]},\
            "properties":{"z":\(tile.zoom),"x":\(tile.x),"y":\(tile.y),"firstSeen":"\(line.firstSeen)",\
            "lastSeen":"\(line.lastSeen)","visits":\(line.visits)}}
            """
    }
}
