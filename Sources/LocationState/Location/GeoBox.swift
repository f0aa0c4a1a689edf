/// A latitude/longitude rectangle, degrees, with `minLon <= maxLon` inside -180...180:
/// a tile's edges (``Tile/bounds``), a region's index box.
///
/// A region that crosses the antimeridian is indexed with two boxes, one each side,
/// and one around a pole with a box of every longitude.
public struct GeoBox: Sendable, Hashable {
    public var minLat: Double
    public var minLon: Double
    public var maxLat: Double
    public var maxLon: Double

    public init(minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        self.minLat = minLat
        self.minLon = minLon
        self.maxLat = maxLat
        self.maxLon = maxLon
    }

    /// Whether the point lies in the box, edges included.
    @inline(__always)
    public func contains(lat: Double, lon: Double) -> Bool {
        lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
    }

    /// The smallest box holding both.
    package func union(_ other: GeoBox) -> GeoBox {
        GeoBox(
            minLat: min(minLat, other.minLat), minLon: min(minLon, other.minLon),
            maxLat: max(maxLat, other.maxLat), maxLon: max(maxLon, other.maxLon))
    }

    /// The boxes inside -180...180 that cover the longitudes `west...east` (degrees, unwrapped:
    /// `east - west` below 360, either may lie beyond ±180) between the two latitudes.
    package static func normalized(south: Double, west: Double, north: Double, east: Double) -> [GeoBox] {
        let south = max(-90, south)
        let north = min(90, north)
        guard east - west < 360 else { return [GeoBox(minLat: south, minLon: -180, maxLat: north, maxLon: 180)] }
        var west = west
        var east = east
        while west < -180 {
            west += 360
            east += 360
        }
        while west >= 180 {
            west -= 360
            east -= 360
        }
        if east <= 180 { return [GeoBox(minLat: south, minLon: west, maxLat: north, maxLon: east)] }
        return [
            GeoBox(minLat: south, minLon: west, maxLat: north, maxLon: 180),
            GeoBox(minLat: south, minLon: -180, maxLat: north, maxLon: east - 360),
        ]
    }
}
