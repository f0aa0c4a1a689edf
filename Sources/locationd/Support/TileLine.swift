import Foundation
import LocationState

/// One tile of the tile log as the control socket's TILE object carries it:
/// `{"class":"TILE","z":14,"x":8800,"y":5373,"firstSeen":ISO8601,"lastSeen":ISO8601,"visits":3}`.
///
/// The times stay the text the daemon wrote, so that `locationd tiles` prints a list
/// asked of the daemon exactly as one read from the file.
struct TileLine: Sendable, Equatable {
    let tile: Tile
    /// ISO 8601 UTC with milliseconds.
    let firstSeen: String
    let lastSeen: String
    let visits: Int

    init(_ record: TileRecord) {
        tile = record.tile
        firstSeen = UTCCalendar.iso8601(record.firstSeen)
        lastSeen = UTCCalendar.iso8601(record.lastSeen)
        visits = record.visits
    }

    /// Reads a TILE object; nil for any other line, or a tile that cannot be.
    init?(jsonLine: some StringProtocol) {
        guard let members = try? JSONDecoder().decode(Members.self, from: Data(jsonLine.utf8)),
            members.class == "TILE", let tile = Tile(zoom: members.z, x: members.x, y: members.y),
            UTCCalendar.parseISO8601(members.firstSeen) != nil, UTCCalendar.parseISO8601(members.lastSeen) != nil
        else { return nil }
        self.tile = tile
        firstSeen = members.firstSeen
        lastSeen = members.lastSeen
        visits = members.visits
    }

    /// The TILE object, one line without a newline.
    var jsonString: String {
        JSONLineEncoder().encodeFinite(
            Members(z: tile.zoom, x: tile.x, y: tile.y, firstSeen: firstSeen, lastSeen: lastSeen, visits: visits))
    }

    private struct Members: Codable {
        var `class` = "TILE"
        let z: Int
        let x: Int
        let y: Int
        let firstSeen: String
        let lastSeen: String
        let visits: Int
    }
}
