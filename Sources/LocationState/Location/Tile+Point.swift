import Foundation

/// A point in Web Mercator tile space at one zoom: fractional tile coordinates, so
/// that `floor(x)`, `floor(y)` is the tile and the fraction is the place inside it.
///
/// x is in `[0, 2^zoom)` (longitude wrapped), y in `[0, 2^zoom]` (latitude clamped).
package struct TilePoint: Sendable, Hashable {
    package var zoom: Int
    package var x: Double
    package var y: Double

    /// The OpenStreetMap formula: `x = (lon + 180) / 360 · 2^z`,
    /// `y = (1 − asinh(tan φ) / π) / 2 · 2^z`.
    package init(latitude: Double, longitude: Double, zoom: Int) {
        let (x, y) = Self.project(latitude: latitude, longitude: longitude)
        self.init(projectedX: x, projectedY: y, zoom: zoom)
    }

    /// The point at `zoom` of a position already projected with ``project(latitude:longitude:)``,
    /// so that several zooms cost one projection.
    package init(projectedX: Double, projectedY: Double, zoom: Int) {
        precondition(Tile.zoomRange.contains(zoom), "zoom \(zoom) outside \(Tile.zoomRange)")
        let count = Double(1 << zoom)
        self.zoom = zoom
        self.x = min(projectedX * count, count.nextDown)
        self.y = min(max(projectedY * count, 0), count)
    }

    /// Web Mercator coordinates of a position at zoom 0: x and y in [0, 1], the
    /// latitude clamped and the longitude wrapped.
    ///
    /// - Precondition: both coordinates are finite.
    package static func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        precondition(latitude.isFinite && longitude.isFinite, "coordinates must be finite")
        let clamped = min(max(latitude, -Tile.maxLatitude), Tile.maxLatitude)
        var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        let phi = clamped * Double.pi / 180
        return (wrapped / 360, (1 - asinh(tan(phi)) / Double.pi) / 2)
    }

    /// The tile that contains the point; a point on the southern limit belongs to the last row.
    package var tile: Tile {
        let last = (1 << zoom) - 1
        return Tile(unchecked: zoom, x: min(Int(x.rounded(.down)), last), y: min(Int(y.rounded(.down)), last))
    }
}
