import Foundation
import LocationState

/// The shape of a ``Region``: a circle on the sphere, or polygons (with holes) in GeoJSON's plane of degrees.
public enum RegionGeometry: Sendable {
    /// All points within `radius` metres of the centre, by great-circle distance on
    /// the mean Earth sphere (as CoreLocation's `CLCircularRegion`).
    case circle(centerLat: Double, centerLon: Double, radius: Double)
    /// A GeoJSON `Polygon` (one element) or `MultiPolygon`.
    case polygons([RegionPolygonShape])

    /// Whether the point is inside.
    public func contains(lat: Double, lon: Double) -> Bool {
        switch self {
        case .circle(let centerLat, let centerLon, let radius):
            Geodesy.greatCircleDistance(lat, lon, centerLat, centerLon) <= radius
        case .polygons(let shapes):
            shapes.contains { $0.polygon.contains(lat: lat, lon: lon) }
        }
    }

    /// Metres from the point to the region's boundary (whether inside or outside).
    public func boundaryDistance(lat: Double, lon: Double) -> Double {
        switch self {
        case .circle(let centerLat, let centerLon, let radius):
            abs(Geodesy.greatCircleDistance(lat, lon, centerLat, centerLon) - radius)
        case .polygons(let shapes):
            shapes.reduce(Double.infinity) { min($0, $1.polygon.boundaryDistance(lat: lat, lon: lon)) }
        }
    }

    /// How far outside the region the point is, metres; 0 inside.
    public func distanceOutside(lat: Double, lon: Double) -> Double {
        switch self {
        case .circle(let centerLat, let centerLon, let radius):
            max(0, Geodesy.greatCircleDistance(lat, lon, centerLat, centerLon) - radius)
        case .polygons:
            contains(lat: lat, lon: lon) ? 0 : boundaryDistance(lat: lat, lon: lon)
        }
    }

    /// The region's size as far as fix accuracy is concerned, metres: a circle's radius,
    /// half the smaller side of a polygon's bounding box (its largest part's).
    public var size: Double {
        switch self {
        case .circle(_, _, let radius): radius
        case .polygons(let shapes): shapes.map(\.polygon.halfWidth).max() ?? 0
        }
    }

    /// Boxes inside -180...180 that together cover the region.
    public var boxes: [GeoBox] {
        switch self {
        case .circle(let lat, let lon, let radius):
            let angle = radius / Geodesy.meanRadius
            let dLat = angle * 180 / Double.pi
            if lat + dLat >= 90 || lat - dLat <= -90 {
                return [GeoBox(minLat: max(-90, lat - dLat), minLon: -180, maxLat: min(90, lat + dLat), maxLon: 180)]
            }
            let dLon = asin(min(1, sin(angle) / cos(lat * Double.pi / 180))) * 180 / Double.pi
            return GeoBox.normalized(south: lat - dLat, west: lon - dLon, north: lat + dLat, east: lon + dLon)
        case .polygons(let shapes):
            return shapes.flatMap(\.polygon.boxes)
        }
    }

    /// Vertices stored for the region (1 for a circle).
    package var vertexCount: Int {
        switch self {
        case .circle: 1
        case .polygons(let shapes): shapes.reduce(0) { $0 + $1.polygon.vertexCount }
        }
    }
}
