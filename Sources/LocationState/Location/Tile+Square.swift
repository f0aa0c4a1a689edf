/// A square block of tiles at one zoom, named by its north-west tile and its side.
public struct TileSquare: Sendable, Hashable {
    /// The north-west (smallest x and y) tile of the block.
    public var origin: Tile
    /// Side of the block, in tiles.
    public var size: Int

    public init(origin: Tile, size: Int) {
        self.origin = origin
        self.size = size
    }

    /// The largest `k` x `k` block made only of the given tiles (the explorer-tile
    /// "max square"), or `nil` when there are none. Ties go to the block whose
    /// south-east tile comes first in (y, x) order. Blocks do not wrap around the
    /// antimeridian.
    ///
    /// - Precondition: all tiles are at the same zoom.
    /// - Complexity: O(n log n) for n tiles.
    public static func largest(in tiles: some Sequence<Tile>) -> TileSquare? {
        let sorted = Set(tiles).sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        guard let zoom = sorted.first?.zoom else { return nil }
        // side[t]: the side of the largest block whose south-east tile is t.
        var side: [Tile: Int] = [:]
        side.reserveCapacity(sorted.count)
        var best: TileSquare?
        for tile in sorted {
            precondition(tile.zoom == zoom, "tiles at different zooms")
            func sideAt(_ dx: Int, _ dy: Int) -> Int {
                side[Tile(unchecked: zoom, x: tile.x + dx, y: tile.y + dy)] ?? 0
            }
            let here = 1 + min(sideAt(-1, 0), sideAt(0, -1), sideAt(-1, -1))
            side[tile] = here
            if here > best?.size ?? 0 {
                best = TileSquare(
                    origin: Tile(unchecked: zoom, x: tile.x - here + 1, y: tile.y - here + 1), size: here)
            }
        }
        return best
    }
}

/// The smallest rectangle of tiles at one zoom that holds a set of tiles.
public struct TileRange: Sendable, Hashable {
    /// Zoom of the tiles.
    public var zoom: Int
    /// Westernmost column.
    public var minX: Int
    /// Easternmost column.
    public var maxX: Int
    /// Northernmost row.
    public var minY: Int
    /// Southernmost row.
    public var maxY: Int

    public init(zoom: Int, minX: Int, maxX: Int, minY: Int, maxY: Int) {
        self.zoom = zoom
        self.minX = minX
        self.maxX = maxX
        self.minY = minY
        self.maxY = maxY
    }

    /// The rectangle's edges in degrees (it does not wrap around the antimeridian).
    public var bounds: TileBounds {
        let northWest = Tile(unchecked: zoom, x: minX, y: minY).bounds
        let southEast = Tile(unchecked: zoom, x: maxX, y: maxY).bounds
        return TileBounds(north: northWest.north, south: southEast.south, west: northWest.west, east: southEast.east)
    }
}
