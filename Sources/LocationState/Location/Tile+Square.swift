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
        var scanner = Scanner()
        for tile in Set(tiles).sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) { scanner.add(tile) }
        return scanner.largest
    }

    /// ``largest(in:)`` over tiles streamed in (x, y) order, as a tile database holds
    /// them: it keeps two columns of tiles, never the whole set, so its memory follows
    /// the covered extent's height, not the history.
    ///
    /// The classic dynamic programme: the largest block whose south-east tile is
    /// (x, y) has side 1 + the least of those at (x-1, y), (x, y-1) and (x-1, y-1).
    public struct Scanner: Sendable {
        /// Sides of the blocks ending in the previous column (`x - 1`), by y.
        private var previous: [Int: Int] = [:]
        private var previousX: Int?
        /// Sides of the blocks ending in the current column, by y.
        private var current: [Int: Int] = [:]
        private var currentX: Int?
        private var last: Tile?
        /// The largest block so far.
        public private(set) var largest: TileSquare?

        public init() {}

        /// Adds the next tile.
        ///
        /// Tiles must come at one zoom, in strictly increasing (x, y) order; one that
        /// does not (a damaged database) is ignored.
        public mutating func add(_ tile: Tile) {
            if let last {
                guard tile.zoom == last.zoom, (last.x, last.y) < (tile.x, tile.y) else { return }
            }
            last = tile
            if tile.x != currentX {
                if let currentX, currentX == tile.x - 1 {
                    swap(&previous, &current)
                    previousX = currentX
                } else {
                    previous.removeAll(keepingCapacity: true)
                    previousX = nil
                }
                current.removeAll(keepingCapacity: true)
                currentX = tile.x
            }
            let west = previousX == nil ? 0 : previous[tile.y] ?? 0
            let northWest = previousX == nil ? 0 : previous[tile.y - 1] ?? 0
            let north = current[tile.y - 1] ?? 0
            let here = 1 + min(west, north, northWest)
            current[tile.y] = here
            // Ties go to the block whose south-east tile comes first in (y, x) order.
            if let best = largest {
                let bestEnd = (best.origin.y + best.size - 1, best.origin.x + best.size - 1)
                guard here > best.size || (here == best.size && (tile.y, tile.x) < bestEnd) else { return }
            }
            largest = TileSquare(
                origin: Tile(unchecked: tile.zoom, x: tile.x - here + 1, y: tile.y - here + 1), size: here)
        }
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
    public var bounds: GeoBox {
        Tile(unchecked: zoom, x: minX, y: minY).bounds.union(Tile(unchecked: zoom, x: maxX, y: maxY).bounds)
    }
}
