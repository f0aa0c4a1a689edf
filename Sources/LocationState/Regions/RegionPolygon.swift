import Foundation
import LocationState

/// A polygon: one outer ring and any number of holes, holes in the outer ring's frame of longitude.
///
/// A point is inside when it is inside the outer ring and in none of the holes
/// (even-odd rule, so ring orientation does not matter: RFC 7946 asks writers for
/// the right-hand rule but tells readers not to reject the other one).
package struct RegionPolygon: Sendable {
    package let outer: RegionRing
    package let holes: [RegionRing]

    package init(outer: RegionRing, holes: [RegionRing]) {
        self.outer = outer
        // A hole written with longitudes of the other side of the antimeridian is moved
        // by whole turns next to its outer ring.
        let center = (outer.minLon + outer.maxLon) / 2
        self.holes = holes.map { hole in
            hole.shifted(byTurns: ((center - (hole.minLon + hole.maxLon) / 2) / 360).rounded())
        }
    }

    package func contains(lat: Double, lon: Double) -> Bool {
        let x = outer.frame(lon)
        guard outer.contains(x: x, y: lat) else { return false }
        for hole in holes where hole.contains(x: hole.frame(x), y: lat) {
            return false
        }
        return true
    }

    /// Metres from the point to the nearest edge of any ring.
    package func boundaryDistance(lat: Double, lon: Double) -> Double {
        holes.reduce(outer.distance(lat: lat, lon: lon)) { min($0, $1.distance(lat: lat, lon: lon)) }
    }

    /// The boxes, inside -180...180, that cover the polygon.
    package var boxes: [GeoBox] {
        GeoBox.normalized(south: outer.minLat, west: outer.minLon, north: outer.maxLat, east: outer.maxLon)
    }

    /// Half the smaller side of the outer ring's bounding box, metres: the polygon's
    /// size as far as fix accuracy is concerned.
    package var halfWidth: Double {
        let height = (outer.maxLat - outer.minLat) * Geodesy.metersPerDegree
        guard !outer.isPolarCap else { return height / 2 }
        let middle = (outer.maxLat + outer.minLat) / 2 * Double.pi / 180
        let width = (outer.maxLon - outer.minLon) * Geodesy.metersPerDegree * cos(middle)
        return min(height, width) / 2
    }

    /// Vertices in all rings (as stored, including the closing ones).
    package var vertexCount: Int { holes.reduce(outer.lons.count) { $0 + $1.lons.count } }
}
