import Foundation

/// What the tile log knows about one tile: when it was first and last seen, and how
/// many times the device entered it.
public struct TileRecord: Sendable, Hashable {
    /// The tile.
    public var tile: Tile
    /// When the device was first in the tile (UTC).
    public var firstSeen: Date
    /// When the device was last in the tile (UTC).
    public var lastSeen: Date
    /// How many times the device entered the tile; staying inside does not count again.
    public var visits: Int

    public init(tile: Tile, firstSeen: Date, lastSeen: Date, visits: Int) {
        self.tile = tile
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.visits = visits
    }

    /// Folds a later or earlier observation of the same tile into this one: the
    /// earliest first sighting, the latest last sighting, the sum of the visits.
    ///
    /// - Precondition: both records are for the same tile.
    public mutating func merge(_ other: TileRecord) {
        precondition(tile == other.tile, "merging records of different tiles")
        firstSeen = min(firstSeen, other.firstSeen)
        lastSeen = max(lastSeen, other.lastSeen)
        visits += other.visits
    }
}
