import Foundation

/// Distances on trackintel's sphere, so that a stay's edge falls where trackintel puts it.
///
/// The formula and the radius are trackintel's `point_haversine_dist` (the law of
/// cosines in its haversine-like arrangement, radius 6 371 000 m), operation for
/// operation: a fix at 99.99 m from a stay's first fix must not be 100.01 m here.
package enum SphericalEarth {
    /// trackintel's earth radius, metres.
    package static let radius = 6_371_000.0
    /// Python's `math.radians` factor, rounded once as Python rounds it.
    package static let radiansPerDegree = Double.pi / 180
    /// Metres per degree of latitude on that sphere.
    package static let metresPerDegree = radius * .pi / 180

    /// The great-circle distance between two points given in degrees, metres.
    @inline(__always)
    package static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double
    {
        let lon1 = longitude1 * radiansPerDegree
        let lat1 = latitude1 * radiansPerDegree
        let lon2 = longitude2 * radiansPerDegree
        let lat2 = latitude2 * radiansPerDegree
        let cosine = cos(lat1 - lat2) - cos(lat1) * cos(lat2) * (1 - cos(lon1 - lon2))
        // Rounding can take the cosine of two equal points a hair above 1.
        return radius * acos(min(1, cosine))
    }

    /// The great-circle distance by the haversine formula, metres: the same sphere, but
    /// exact for the centimetre steps of a slow walk at 10 Hz, which the cosine formula
    /// above rounds to 0 or 10 cm. For the length of a path.
    @inline(__always)
    package static func pathDistance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double)
        -> Double
    {
        let lat1 = latitude1 * radiansPerDegree
        let lat2 = latitude2 * radiansPerDegree
        let halfNorth = sin((lat2 - lat1) / 2)
        let halfEast = sin((longitude2 - longitude1) * radiansPerDegree / 2)
        let h = halfNorth * halfNorth + cos(lat1) * cos(lat2) * halfEast * halfEast
        return 2 * radius * asin(min(1, h.squareRoot()))
    }

    /// `degrees` brought into -180..<180.
    @inline(__always)
    package static func wrappedDegrees(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value >= 180 { value -= 360 } else if value < -180 { value += 360 }
        return value
    }
}
