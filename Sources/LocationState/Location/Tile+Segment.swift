/// One tile a straight segment passes through, with the part of the segment inside it.
package struct TileCrossing: Sendable, Hashable {
    /// The tile.
    package var tile: Tile
    /// Where the segment enters the tile, as a fraction of the segment: 0 is its start.
    package var enter: Double
    /// Where the segment leaves the tile, as a fraction of the segment: 1 is its end.
    package var exit: Double
}

extension TilePoint {
    /// The tiles a straight line from `self` to `end` (in Web Mercator tile space)
    /// passes through, in order, each one once: a 4-connected grid traversal
    /// (Amanatides & Woo), so two consecutive tiles always share an edge.
    ///
    /// The line takes the shorter way around the world: from 179.9° E to 179.9° W it
    /// crosses the antimeridian instead of going round. Where the line passes exactly
    /// through a tile corner, the tile to the east or west of the corner is taken as
    /// the one in between. The first crossing is `self`'s tile with `enter == 0`, the
    /// last `end`'s tile with `exit == 1`.
    ///
    /// - Precondition: both points are at the same zoom.
    package func crossings(to end: TilePoint) -> [TileCrossing] {
        var result: [TileCrossing] = []
        forEachCrossing(to: end) { result.append($0) }
        return result
    }

    /// Calls `body` with each tile ``crossings(to:)`` returns, in order, without
    /// building the array: the tile logger's path for every fix that leaves a tile.
    package func forEachCrossing(to end: TilePoint, _ body: (TileCrossing) -> Void) {
        precondition(zoom == end.zoom, "points at different zooms")
        let count = 1 << zoom
        let size = Double(count)
        var endX = end.x
        if endX - x > size / 2 { endX -= size } else if x - endX > size / 2 { endX += size }
        let dx = endX - x
        let dy = end.y - y

        let start = tile
        let last = end.tile
        var column = start.x
        var row = start.y
        // Adding whole turns to x keeps its fraction, so the unwrapped end column is
        // the end tile's column plus or minus 2^zoom.
        let unwrappedStartColumn = x.rounded(.down)
        var stepsX = Int(abs(endX.rounded(.down) - unwrappedStartColumn))
        var stepsY = abs(last.y - start.y)
        let stepX = dx < 0 ? -1 : 1
        let stepY = dy < 0 ? -1 : 1
        let deltaX = dx == 0 ? Double.infinity : 1 / abs(dx)
        let deltaY = dy == 0 ? Double.infinity : 1 / abs(dy)
        var nextX =
            dx == 0 ? Double.infinity : (stepX > 0 ? unwrappedStartColumn + 1 - x : x - unwrappedStartColumn) / abs(dx)
        var nextY = dy == 0 ? Double.infinity : (stepY > 0 ? Double(row + 1) - y : y - Double(row)) / abs(dy)

        var enter = 0.0
        while stepsX > 0 || stepsY > 0 {
            let alongX = stepsY == 0 || (stepsX > 0 && nextX <= nextY)
            let leave = min(max(alongX ? nextX : nextY, enter), 1)
            body(TileCrossing(tile: Tile(unchecked: zoom, x: column, y: row), enter: enter, exit: leave))
            enter = leave
            if alongX {
                column = (column + stepX + count) % count
                nextX += deltaX
                stepsX -= 1
            } else {
                row += stepY
                nextY += deltaY
                stepsY -= 1
            }
        }
        body(TileCrossing(tile: Tile(unchecked: zoom, x: column, y: row), enter: enter, exit: 1))
    }
}
