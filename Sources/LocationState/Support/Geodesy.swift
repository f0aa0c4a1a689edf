import Foundation

/// Distances on the WGS84 ellipsoid.
enum Geodesy {
    /// WGS84 semi-major axis, metres.
    static let a = 6_378_137.0
    /// WGS84 flattening.
    static let f = 1 / 298.257_223_563
    /// WGS84 semi-minor axis, metres.
    static let b = a * (1 - f)

    /// The geodesic distance between two points (Vincenty's inverse formula), metres.
    ///
    /// Falls back to a spherical great circle for nearly antipodal points, where the
    /// iteration does not converge.
    static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
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
        let phi1 = latitude1 * radians, phi2 = latitude2 * radians
        let h = sin((phi2 - phi1) / 2) * sin((phi2 - phi1) / 2) + cos(phi1) * cos(phi2) * sin(l / 2) * sin(l / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }
}
