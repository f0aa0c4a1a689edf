import Foundation
import LocationFormats
import LocationState

/// One closed ring of a polygon, in a plane of latitude and longitude degrees, as
/// RFC 7946 draws a GeoJSON edge: a straight line between two positions.
///
/// Longitudes are unwrapped (each step is taken the short way, below 180°), so that
/// a ring crossing the antimeridian is one ring with longitudes beyond ±180, not two
/// halves. A ring whose unwrapped longitudes end 360° from where they began goes
/// around a pole: it is closed through that pole (the pole of its hemisphere), and
/// the closing edges are not part of its boundary.
package struct RegionRing: Sendable {
    /// Unwrapped longitudes, closed (the last equals the first).
    package let lons: [Double]
    /// Latitudes, closed.
    package let lats: [Double]
    /// The edges `0..<realEdges` are the ring's own; later ones close a polar cap.
    package let realEdges: Int
    package let minLat: Double
    package let maxLat: Double
    package let minLon: Double
    package let maxLon: Double

    /// Makes a ring from GeoJSON positions; throws a one-sentence problem.
    ///
    /// - Parameter positions: longitudes and latitudes, interleaved, as in the file.
    package init(positions: ArraySlice<Double>) throws(RegionFileProblem) {
        let count = positions.count / 2
        guard count >= 4 else {
            throw RegionFileProblem("a ring needs at least 4 positions (the first repeated last), it has \(count)")
        }
        let start = positions.startIndex
        func lon(_ i: Int) -> Double { positions[start + 2 * i] }
        func lat(_ i: Int) -> Double { positions[start + 2 * i + 1] }
        guard lon(0) == lon(count - 1), lat(0) == lat(count - 1) else {
            throw RegionFileProblem(
                "a ring is not closed: it starts at [\(lon(0)), \(lat(0))] and ends at [\(lon(count - 1)), \(lat(count - 1))]"
            )
        }
        var lons: [Double] = []
        var lats: [Double] = []
        lons.reserveCapacity(count + 2)
        lats.reserveCapacity(count + 2)
        for i in 0..<count {
            let x = lon(i)
            let y = lat(i)
            guard x.isFinite, y.isFinite, abs(y) <= 90, abs(x) <= 540 else {
                throw RegionFileProblem("position [\(x), \(y)] is not a longitude and latitude")
            }
            guard let previous = lons.last else {
                lons.append(x)
                lats.append(y)
                continue
            }
            // The short way round: a jump of more than 180° crosses the antimeridian.
            let step = (x - previous).remainder(dividingBy: 360)
            if step == 0, y == lats[lats.count - 1] { continue }  // a repeated position
            lons.append(previous + step)
            lats.append(y)
        }
        guard lons.count >= 4 else {
            throw RegionFileProblem("a ring has fewer than 3 distinct positions")
        }
        let turn = ((lons[lons.count - 1] - lons[0]) / 360).rounded()
        let realEdges = lons.count - 1
        if turn != 0 {
            guard abs(turn) == 1 else { throw RegionFileProblem("a ring winds around a pole more than once") }
            // Around a pole: close the ring through the pole of its hemisphere.
            let pole: Double = lats.reduce(0, +) >= 0 ? 90 : -90
            let last = lons[lons.count - 1]
            lons += [last, lons[0], lons[0]]
            lats += [pole, pole, lats[0]]
        }
        self.lons = lons
        self.lats = lats
        self.realEdges = realEdges
        minLat = lats.min() ?? 0
        maxLat = lats.max() ?? 0
        minLon = lons.min() ?? 0
        maxLon = lons.max() ?? 0
        guard maxLon - minLon <= 360 else { throw RegionFileProblem("a ring spans more than 360° of longitude") }
        try checkSimple()
    }

    /// Whether the ring goes around a pole.
    package var isPolarCap: Bool { realEdges < lons.count - 1 }

    /// The same ring moved by whole turns of longitude.
    package func shifted(byTurns turns: Double) -> RegionRing {
        guard turns != 0 else { return self }
        return RegionRing(moving: self, by: turns * 360)
    }

    private init(moving ring: RegionRing, by degrees: Double) {
        lons = ring.lons.map { $0 + degrees }
        lats = ring.lats
        realEdges = ring.realEdges
        minLat = ring.minLat
        maxLat = ring.maxLat
        minLon = ring.minLon + degrees
        maxLon = ring.maxLon + degrees
    }

    /// `lon` moved by whole turns to lie in `minLon ..< minLon + 360`.
    @inline(__always)
    package func frame(_ lon: Double) -> Double {
        var x = lon
        while x < minLon { x += 360 }
        while x >= minLon + 360 { x -= 360 }
        return x
    }

    /// Even-odd test of a point in this ring's frame (`x` from ``frame(_:)``).
    package func contains(x: Double, y: Double) -> Bool {
        guard y >= minLat, y <= maxLat, x <= maxLon else { return false }
        // The pole of a polar cap lies on its closing edges; it belongs to the cap.
        if isPolarCap, abs(y) == 90, y == lats[lats.count - 2] { return true }
        return lons.withUnsafeBufferPointer { xs in
            lats.withUnsafeBufferPointer { ys in
                var inside = false
                var x1 = xs[0]
                var y1 = ys[0]
                for i in 1..<xs.count {
                    let x2 = xs[i]
                    let y2 = ys[i]
                    if (y1 > y) != (y2 > y), x < (x2 - x1) * (y - y1) / (y2 - y1) + x1 {
                        inside.toggle()
                    }
                    x1 = x2
                    y1 = y2
                }
                return inside
            }
        }
    }

    /// The distance in metres from the point to the ring's own edges (not those that
    /// close a polar cap), measured in a local equirectangular plane around the point.
    ///
    /// Accurate to a fraction of a percent over the few hundred metres that matter
    /// for hysteresis; near a pole, distances across meridians come out short, which
    /// only makes a leave there wait a little longer.
    package func distance(lat: Double, lon: Double) -> Double {
        var x = lon
        let center = (minLon + maxLon) / 2
        while x < center - 180 { x += 360 }
        while x > center + 180 { x -= 360 }
        let ky = Geodesy.metersPerDegree
        let kx = ky * cos(lat * Double.pi / 180)
        var best = Double.infinity
        for i in 0..<realEdges {
            let ax = (lons[i] - x) * kx
            let ay = (lats[i] - lat) * ky
            let bx = (lons[i + 1] - x) * kx
            let by = (lats[i + 1] - lat) * ky
            let dx = bx - ax
            let dy = by - ay
            let length = dx * dx + dy * dy
            let t = length > 0 ? max(0, min(1, -(ax * dx + ay * dy) / length)) : 0
            let px = ax + t * dx
            let py = ay + t * dy
            best = min(best, px * px + py * py)
        }
        return best.squareRoot()
    }
}
