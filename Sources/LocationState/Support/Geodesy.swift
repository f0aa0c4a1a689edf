import Foundation

/// Distances on the Earth: on the WGS84 ellipsoid, and on the mean sphere where a
/// plausibility bound or a region's edge needs no better.
public enum Geodesy {
    /// Mean Earth radius (IUGG), metres.
    public static let meanRadius = 6_371_008.8
    /// Metres per degree of latitude on the mean sphere.
    public static let metersPerDegree = meanRadius * Double.pi / 180

    /// WGS84 semi-major axis, metres.
    package static let a = 6_378_137.0
    /// WGS84 flattening.
    package static let f = 1 / 298.257_223_563
    /// WGS84 semi-minor axis, metres.
    package static let b = a * (1 - f)

    /// The geodesic distance between two points (Vincenty's inverse formula), metres.
    ///
    /// Falls back to a spherical great circle for nearly antipodal points, where the
    /// iteration does not converge.
    package static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double
    {
        let radians = Double.pi / 180
        let l = (longitude2 - longitude1) * radians
        let u1 = atan((1 - f) * tan(latitude1 * radians))
        let u2 = atan((1 - f) * tan(latitude2 * radians))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = l
        for _ in 0..<100 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let sinSigma =
                ((cosU2 * sinLambda) * (cosU2 * sinLambda)
                + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) * (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda))
                .squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cosSqAlpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cosSqAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha : 0
            let c = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
            let previous = lambda
            lambda =
                l + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uSq = cosSqAlpha * (a * a - b * b) / (b * b)
                let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
                let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
                let deltaSigma =
                    bigB * sinSigma
                    * (cos2SigmaM + bigB / 4
                        * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
                            * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * bigA * (sigma - deltaSigma)
            }
        }
        return greatCircleDistance(latitude1, longitude1, latitude2, longitude2)
    }

    /// Great-circle distance on the mean sphere (haversine), metres: within 0.5 % of the
    /// geodesic, and several times cheaper.
    @inline(__always)
    public static func greatCircleDistance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        return greatCircleDistance(
            haversine: haversine(
                lat1, lon1, lat2, lon2, cosLatitude1: cos(lat1 * radians), cosLatitude2: cos(lat2 * radians)))
    }

    /// The haversine of the central angle between two points, from their latitudes'
    /// cosines (which a caller on the fix path keeps from one fix to the next).
    @inline(__always)
    package static func haversine(
        _ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, cosLatitude1: Double, cosLatitude2: Double
    ) -> Double {
        let radians = Double.pi / 180
        let s = sin((lat2 - lat1) * radians / 2)
        let t = sin((lon2 - lon1) * radians / 2)
        return s * s + cosLatitude1 * cosLatitude2 * t * t
    }

    /// The great-circle distance for a haversine `h`, metres: `2R·asin(√h)`.
    @inline(__always)
    package static func greatCircleDistance(haversine h: Double) -> Double {
        2 * meanRadius * asin(min(1, h.squareRoot()))
    }
}
