import Foundation
import LocationRegions
import LocationState

/// A circle region.
package func circle(_ id: String, lat: Double, lon: Double, radius: Double) -> Region {
    Region(id: RegionID(id), name: id.capitalized, geometry: .circle(centerLat: lat, centerLon: lon, radius: radius))
}

/// A polygon region from `[lon, lat]` rings (closed by the caller).
package func polygon(_ id: String, _ rings: [[(Double, Double)]]) throws -> Region {
    let shape = try RegionPolygonShape(rings: rings.map { $0.flatMap { [$0.0, $0.1] } })
    return Region(id: RegionID(id), name: id.capitalized, geometry: .polygons([shape]))
}

/// A closed rectangle ring.
package func rectangle(west: Double, south: Double, east: Double, north: Double) -> [(Double, Double)] {
    [(west, south), (east, south), (east, north), (west, north), (west, south)]
}

/// A live fix at `second` seconds after a fixed start.
package func regionFix(
    _ lat: Double, _ lon: Double, second: Double = 0, eph: Double? = nil, source: FixSource = .gpsd
) -> Location {
    Location(
        time: Date(timeIntervalSince1970: 1_795_000_000 + second), mode: .threeD, lat: lat, lon: lon, eph: eph,
        source: source)
}

/// Runs the reducer over `fixes` from `start`; returns the events with the index of the fix that made each.
package func runMembership(
    _ fixes: [Location?], regions: RegionSet, options: RegionMembership.Options = .init(),
    start: MembershipState = MembershipState(settled: true)
) -> (state: MembershipState, events: [(index: Int, event: RegionEvent)]) {
    var state = start
    var events: [(Int, RegionEvent)] = []
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    for (index, fix) in fixes.enumerated() {
        let (next, new) = RegionMembership.next(
            previous: state, fix: fix, regions: regions, now: now, options: options)
        state = next
        events += new.map { (index, $0) }
    }
    return (state, events)
}

/// Metres per degree of latitude on the sphere the regions use.
package let metersPerDegree = Geodesy.metersPerDegree
