import Foundation

/// The fixes since a stay candidate's first one, as running sums: constant memory
/// however long the device stays.
///
/// Distances are measured from the first fix (trackintel's `start`), so only it is
/// kept; the centroid and radius come from the sums of the fixes' offsets from it.
package struct StayCandidate: Sendable, Hashable, Codable {
    /// The first fix: the candidate's start and the point distances are measured from.
    package let first: TrackPoint
    /// The time of the latest fix.
    private(set) var end: Date
    private(set) var fixes = 1
    /// Sums of the fixes' offsets from the first fix: degrees north, degrees east
    /// (wrapped), and squared metres.
    private var sumNorth = 0.0
    private var sumEast = 0.0
    private var sumSquares = 0.0
    /// Metres of trip from the first fix to the latest: the trip's, if the candidate
    /// turns out not to be a stay (not kept once it is one).
    private(set) var path = 0.0
    /// The fastest speed of its fixes and steps, metres per second (not kept once it is a stay).
    private(set) var maxSpeed: Double
    /// Whether the fixes have lasted the stay duration: the candidate is a stay.
    package var isEstablished = false

    package init(first: TrackPoint, speed: Double) {
        self.first = first
        end = first.time
        maxSpeed = speed
    }

    package var start: Date { first.time }

    /// Adds a fix within the stay distance of the first, `travel` metres of trip from the
    /// fix before (see ``MotionTracker/Step``), at `speed`.
    @inline(__always)
    package mutating func add(_ point: TrackPoint, travel: Double, speed: Double) {
        end = point.time
        fixes += 1
        let north = point.latitude - first.latitude
        let east = SphericalEarth.wrappedDegrees(point.longitude - first.longitude)
        sumNorth += north
        sumEast += east
        let northMetres = north * SphericalEarth.metresPerDegree
        let eastMetres = east * metresPerDegreeEast
        sumSquares += northMetres * northMetres + eastMetres * eastMetres
        if !isEstablished {
            path += travel
            if speed > maxSpeed { maxSpeed = speed }
        }
    }

    private var metresPerDegreeEast: Double {
        SphericalEarth.metresPerDegree * cos(first.latitude * SphericalEarth.radiansPerDegree)
    }

    /// The candidate as a stay ending at `end`: trackintel's `finished_at`, the time of the
    /// fix that left it, or of its latest fix while it is open.
    package func stay(end: Date, isOpen: Bool) -> Stay {
        let count = Double(fixes)
        let north = sumNorth / count
        let east = sumEast / count
        let northMetres = north * SphericalEarth.metresPerDegree
        let eastMetres = east * metresPerDegreeEast
        let variance = sumSquares / count - (northMetres * northMetres + eastMetres * eastMetres)
        return Stay(
            start: start, end: end,
            latitude: first.latitude + north,
            longitude: SphericalEarth.wrappedDegrees(first.longitude + east),
            radius: max(0, variance).squareRoot(), fixes: fixes, isOpen: isOpen)
    }
}
