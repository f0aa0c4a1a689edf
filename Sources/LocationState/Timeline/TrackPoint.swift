import Foundation

/// A fix reduced to what motion needs: when, where, and the receiver's speed.
package struct TrackPoint: Sendable, Hashable, Codable {
    package var time: Date
    package var latitude: Double
    package var longitude: Double
    /// The receiver's speed, metres per second, when it reported one.
    package var speed: Double?

    /// The distance to `other` on trackintel's sphere by trackintel's formula, metres:
    /// for the stay rule.
    @inline(__always)
    package func distance(to other: TrackPoint) -> Double {
        SphericalEarth.distance(
            latitude1: latitude, longitude1: longitude, latitude2: other.latitude, longitude2: other.longitude)
    }

    /// The length of the step to `other`, metres: for paths and speeds.
    @inline(__always)
    package func step(to other: TrackPoint) -> Double {
        SphericalEarth.pathDistance(
            latitude1: latitude, longitude1: longitude, latitude2: other.latitude, longitude2: other.longitude)
    }

    /// Seconds from `earlier` to this point, rounded to the microsecond: track times have
    /// at most that resolution, and a 300.000 s stay must not come out 299.9999999 s.
    @inline(__always)
    package func seconds(since earlier: Date) -> Double {
        Self.seconds(from: earlier, to: time)
    }

    /// Seconds from `earlier` to `later`, rounded to the microsecond.
    @inline(__always)
    package static func seconds(from earlier: Date, to later: Date) -> Double {
        (later.timeIntervalSince(earlier) * 1_000_000).rounded() / 1_000_000
    }
}
