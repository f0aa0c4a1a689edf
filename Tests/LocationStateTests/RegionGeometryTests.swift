import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationRegions
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct RegionGeometryTests {
    @Test func aPolygonWithAHoleExcludesTheHole() throws {
        let region = try polygon(
            "park",
            [
                rectangle(west: 13.0, south: 52.0, east: 13.4, north: 52.4),
                rectangle(west: 13.1, south: 52.1, east: 13.2, north: 52.2),
            ])
        #expect(region.geometry.contains(lat: 52.05, lon: 13.05))
        #expect(!region.geometry.contains(lat: 52.15, lon: 13.15))
        #expect(region.geometry.contains(lat: 52.3, lon: 13.3))
        #expect(!region.geometry.contains(lat: 52.5, lon: 13.3))
        // In the middle of the hole: its western and eastern edges, 0.05° of longitude
        // away, are the nearest boundary.
        let outside = region.geometry.distanceOutside(lat: 52.15, lon: 13.15)
        #expect(abs(outside - 0.05 * metersPerDegree * cos(52.15 * Double.pi / 180)) < 5)
    }

    /// A ring written across the antimeridian, with longitudes that jump from 179 to -179.
    @Test(arguments: [
        (-16.8, 179.5, true), (-16.8, -179.5, true), (-16.8, 180.0, true), (-16.8, 178.5, false),
        (-16.8, -178.5, false), (-18.5, 179.9, false),
    ])
    func aPolygonAcrossTheAntimeridian(lat: Double, lon: Double, inside: Bool) throws {
        let region = try polygon("fiji", [[(179, -17), (-179, -17), (-179, -16), (179, -16), (179, -17)]])
        #expect(region.geometry.contains(lat: lat, lon: lon) == inside)
        let set = try RegionSet([region])
        #expect(set.regions(containing: lat, lon).map(\.id) == (inside ? ["fiji"] : []))
    }

    /// A ring around the North Pole at 89°: it is closed through the pole.
    @Test(arguments: [
        (89.5, 0.0, true), (89.5, 123.0, true), (89.99, -170.0, true), (90.0, 0.0, true), (88.9, 45.0, false),
    ])
    func aPolarCap(lat: Double, lon: Double, inside: Bool) throws {
        let region = try polygon("cap", [[(0, 89), (90, 89), (180, 89), (-90, 89), (0, 89)]])
        #expect(region.geometry.contains(lat: lat, lon: lon) == inside)
        let set = try RegionSet([region])
        #expect(set.regions(containing: lat, lon).isEmpty == !inside)
        // The pole is not on the boundary: the only boundary is the 89th parallel.
        if inside { #expect(region.geometry.boundaryDistance(lat: lat, lon: lon) > (lat - 89.01) * metersPerDegree) }
    }

    @Test func circlesUseGreatCircleDistanceAcrossTheAntimeridianAndAtAPole() throws {
        let dateLine = circle("dateline", lat: -16.8, lon: 179.999, radius: 500)
        let pole = circle("pole", lat: 89.999, lon: 0, radius: 1000)
        let set = try RegionSet([dateLine, pole])
        // 0.002° of longitude east, across 180°, at 16.8° S: about 213 m.
        #expect(set.regions(containing: -16.8, -179.999).map(\.id) == ["dateline"])
        #expect(set.regions(containing: -16.8, 179.99).isEmpty)
        // 111 m from the centre on the other side of the pole.
        #expect(set.regions(containing: 89.999, 180).map(\.id) == ["pole"])
        #expect(set.regions(containing: 89.98, 45).isEmpty)
        let distance = Geodesy.greatCircleDistance(-16.8, 179.999, -16.8, -179.999)
        #expect(abs(distance - 0.002 * metersPerDegree * cos(16.8 * Double.pi / 180)) < 0.5)
    }

    @Test func aMultiPolygonContainsEachPart() throws {
        let set = try RegionSet(
            geoJSON: """
                {"type":"FeatureCollection","features":[{"type":"Feature","id":7,"properties":{"name":"Two"},
                "geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,6],[5,5]]]]}}]}
                """)
        #expect(set.regions(containing: 0.5, 0.5).map(\.id) == ["7"])
        #expect(set.regions(containing: 5.5, 5.5).map(\.id) == ["7"])
        #expect(set.regions(containing: 3, 3).isEmpty)
    }

    /// The index answers exactly what a scan of every region answers.
    @Test func theIndexAgreesWithAScan() throws {
        var generator = SplitMix64(seed: 13)
        var regions: [Region] = []
        for index in 0..<3000 {
            let lat = Double.random(in: -60...60, using: &generator)
            let lon = Double.random(in: -180...180, using: &generator)
            if index.isMultiple(of: 2) {
                regions.append(circle("c\(index)", lat: lat, lon: lon, radius: Double.random(in: 1000...200_000)))
            } else {
                let size = Double.random(in: 0.01...2)
                regions.append(
                    try polygon("p\(index)", [rectangle(west: lon, south: lat, east: lon + size, north: lat + size)]))
            }
        }
        let set = try RegionSet(regions)
        for _ in 0..<2000 {
            let lat = Double.random(in: -60...60, using: &generator)
            let lon = Double.random(in: -180...180, using: &generator)
            let scan = regions.filter { $0.geometry.contains(lat: lat, lon: lon) }.map(\.id)
            #expect(set.regions(containing: lat, lon).map(\.id) == scan)
        }
    }
}
