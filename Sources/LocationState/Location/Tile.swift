import Foundation

/// A slippy-map tile in the OpenStreetMap convention: `zoom/x/y`, x growing east from
/// the antimeridian, y growing south from the northern Web Mercator limit.
///
/// At zoom `z` the world is `2^z` by `2^z` tiles. Latitudes beyond the Web Mercator
/// limit (±``maxLatitude``) are clamped to it; longitudes are wrapped into
/// [-180°, 180°), so 180° E is the first column (x = 0) like 180° W.
public struct Tile: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The northern and southern limit of Web Mercator, degrees: `atan(sinh(π))`.
    public static let maxLatitude = 85.051_128_779_806_59
    /// The zooms locationd accepts.
    public static let zoomRange: ClosedRange<Int> = 0...22

    /// Zoom level, in ``zoomRange``.
    public let zoom: Int
    /// Column, 0 at the antimeridian (180° W), `2^zoom - 1` just west of it.
    public let x: Int
    /// Row, 0 at the northern limit, `2^zoom - 1` at the southern limit.
    public let y: Int

    /// A tile by its coordinates, or `nil` when the zoom is outside ``zoomRange`` or
    /// x or y is outside `0..<2^zoom`.
    public init?(zoom: Int, x: Int, y: Int) {
        guard Self.zoomRange.contains(zoom) else { return nil }
        let count = 1 << zoom
        guard (0..<count).contains(x), (0..<count).contains(y) else { return nil }
        self.init(unchecked: zoom, x: x, y: y)
    }

    /// The tile that contains a point.
    ///
    /// - Parameters:
    ///   - latitude: degrees, clamped to ±``maxLatitude``.
    ///   - longitude: degrees, any value: it is wrapped into [-180°, 180°).
    ///   - zoom: in ``zoomRange``.
    /// - Precondition: `zoom` is in ``zoomRange`` and both coordinates are finite.
    public init(latitude: Double, longitude: Double, zoom: Int) {
        let point = TilePoint(latitude: latitude, longitude: longitude, zoom: zoom)
        self = point.tile
    }

    package init(unchecked zoom: Int, x: Int, y: Int) {
        self.zoom = zoom
        self.x = x
        self.y = y
    }

    /// The tile's edges in degrees: north and south latitude, west and east longitude.
    public var bounds: GeoBox {
        let count = Double(1 << zoom)
        func latitude(row: Int) -> Double {
            atan(sinh(Double.pi * (1 - 2 * Double(row) / count))) * 180 / Double.pi
        }
        return GeoBox(
            minLat: latitude(row: y + 1), minLon: Double(x) / count * 360 - 180,
            maxLat: latitude(row: y), maxLon: Double(x + 1) / count * 360 - 180)
    }

    /// Hashes the three coordinates packed into one word (zoom ≤ 22 and x, y < 2^22 fit),
    /// one round of the hasher instead of three: the tile logger hashes a tile for every
    /// tile a fix enters.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(
            UInt64(truncatingIfNeeded: zoom) << 58 ^ UInt64(truncatingIfNeeded: x) << 29 ^ UInt64(truncatingIfNeeded: y)
        )
    }

    /// `zoom/x/y`, the path of the tile on a tile server.
    public var description: String { "\(zoom)/\(x)/\(y)" }

    /// Orders by zoom, then x, then y.
    public static func < (lhs: Tile, rhs: Tile) -> Bool {
        (lhs.zoom, lhs.x, lhs.y) < (rhs.zoom, rhs.x, rhs.y)
    }
}
