import Foundation
import LocationProviders
import LocationRegions
import LocationState

/// Regions: the membership update per fix (`RegionMembership.next`: index query, exact
/// tests, hysteresis) with 100,000 regions and with 10, against shapely 2's STRtree
/// `query(point, predicate="intersects")` on the same regions and points (Python,
/// `Peers/shapely_regions.py`).
///
/// Half the regions are circles (radius 50 m to 2 km), half polygons (8 to 24
/// vertices, 100 m to 2 km across), spread over 5° by 10° of central Europe, so that a
/// fix is inside about one region. The fixes are a drive: 20,000 fixes 15 m apart
/// (15 m/s at 1 Hz) winding through the same area, so that membership changes where
/// the track crosses a boundary, as it does for a device. A second Swift figure takes
/// 20,000 random points instead, each far from the last (a transition almost every
/// fix: the worst case, not a device). Everything is drawn from a fixed seed. The
/// target: under 20 µs median with 100,000 regions, within 5x of 10.
func regionsBenchmark() async throws {
    var random = SplitMix64(seed: 13)
    var many: [Region] = []
    many.reserveCapacity(100_000)
    var peerRegions: [Any] = []
    for index in 0..<100_000 {
        let lat = random.uniform(45, 50)
        let lon = random.uniform(5, 15)
        if index.isMultiple(of: 2) {
            let radius = random.uniform(50, 2000)
            many.append(
                Region(
                    id: RegionID("c\(index)"), name: "circle \(index)",
                    geometry: .circle(centerLat: lat, centerLon: lon, radius: radius)))
            peerRegions.append(["c", lat, lon, radius])
        } else {
            let count = 8 + Int(random.next() % 17)
            let size = random.uniform(100, 2000) / 111_195
            // A star-shaped ring: angles in order, radii varied, never self-intersecting.
            var ring: [[Double]] = (0..<count).map { k in
                let angle = 2 * Double.pi * Double(k) / Double(count)
                let radius = size * random.uniform(0.5, 1)
                return [lon + radius * cos(angle) / cos(lat * Double.pi / 180), lat + radius * sin(angle)]
            }
            ring.append(ring[0])
            let shape = try RegionPolygonShape(rings: [ring.flatMap { $0 }])
            many.append(Region(id: RegionID("p\(index)"), name: "polygon \(index)", geometry: .polygons([shape])))
            peerRegions.append(["p", ring])
        }
    }
    var points: [(lat: Double, lon: Double)] = []
    var (lat, lon, heading) = (47.5, 10.0, random.uniform(0, 360))
    for _ in 0..<20_000 {
        points.append((lat, lon))
        heading += random.uniform(-5, 5)
        let radians = heading * Double.pi / 180
        lat += 15 * cos(radians) / 111_195
        lon += 15 * sin(radians) / (111_195 * cos(lat * Double.pi / 180))
        // Turn back at the area's edges.
        if lat < 45.1 || lat > 49.9 || lon < 5.1 || lon > 14.9 { heading += 180 }
    }
    let scattered: [(lat: Double, lon: Double)] = (0..<20_000).map { _ in
        (random.uniform(45, 50), random.uniform(5, 15))
    }

    let manySet = try RegionSet(many)
    let fewSet = try RegionSet(Array(many.prefix(10)))
    let (manyMedian, manyHits) = medianUpdate(regions: manySet, points: points)
    let (fewMedian, _) = medianUpdate(regions: fewSet, points: points)
    let (scatteredMedian, scatteredHits) = medianUpdate(regions: manySet, points: scattered)

    let input = FileManager.default.temporaryDirectory.appendingPathComponent(
        "locationd-bench-regions-\(getpid()).json")
    defer { try? FileManager.default.removeItem(at: input) }
    let json: [String: Any] = [
        "many": peerRegions, "few": Array(peerRegions.prefix(10)), "points": points.map { [$0.lon, $0.lat] },
    ]
    try JSONSerialization.data(withJSONObject: json).write(to: input)
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers/shapely_regions.py")
    let peer = try runPython(script: script.path, input: input.path)
    guard let peerMany = peer["many"], let peerFew = peer["few"] else {
        throw BenchmarkError("the shapely peer printed no figures")
    }

    print(
        String(
            format: "locationd  100,000 regions: %.2f µs median per fix (%d fixes, %d memberships found)",
            manyMedian * 1e6, points.count, manyHits))
    print(
        String(
            format: "locationd  10 regions:      %.2f µs median per fix; 100,000 / 10 = %.2fx", fewMedian * 1e6,
            manyMedian / fewMedian))
    print(
        String(
            format: "locationd  100,000 regions, random points: %.2f µs median per fix (%d memberships found)",
            scatteredMedian * 1e6, scatteredHits))
    print(
        String(
            format:
                "shapely    100,000 regions: %.2f µs median per point query (%.2f µs per point in one vectorized query; %d hits)",
            peerMany.median * 1e6, peerMany.bulk * 1e6, peerMany.hits))
    print(String(format: "shapely    10 regions:      %.2f µs median per point query", peerFew.median * 1e6))
    print(
        String(
            format:
                "regions: ratio %.2f vs shapely STRtree (locationd %.2f µs vs %.2f µs median per fix, 100,000 regions; %.2f vs its vectorized query; target < 20 µs and 100,000/10 within 5x: %.2fx)",
            manyMedian / peerMany.median, manyMedian * 1e6, peerMany.median * 1e6, manyMedian / peerMany.bulk,
            manyMedian / fewMedian))
}

/// The median time of one membership update per point, and the memberships found.
private func medianUpdate(regions: RegionSet, points: [(lat: Double, lon: Double)]) -> (Double, Int) {
    var state = MembershipState(settled: true)
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    let fixes = points.enumerated().map { index, point in
        Location(
            time: start.addingTimeInterval(Double(index)), mode: .threeD, lat: point.lat, lon: point.lon, eph: 5,
            source: .gpsd)
    }
    for fix in fixes.prefix(1000) {
        state = RegionMembership.next(previous: state, fix: fix, regions: regions, now: start).0
    }
    var durations: [Double] = []
    durations.reserveCapacity(fixes.count)
    var found = 0
    let clock = ContinuousClock()
    for fix in fixes {
        let begin = clock.now
        let next = RegionMembership.next(previous: state, fix: fix, regions: regions, now: start).0
        let elapsed = clock.now - begin
        state = next
        found += state.inside.count
        durations.append(elapsed.inSeconds)
    }
    durations.sort()
    return (durations[durations.count / 2], found)
}

/// Runs the peer and reads its lines: `NAME MEDIAN_NS BULK_NS HITS`.
private func runPython(script: String, input: String) throws -> [String: (median: Double, bulk: Double, hits: Int)] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script, input]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("python3 \(script) failed (status \(process.terminationStatus)); is shapely 2 installed?")
    }
    var figures: [String: (Double, Double, Int)] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let words = line.split(separator: " ")
        guard words.count == 4, let median = Double(words[1]), let bulk = Double(words[2]), let hits = Int(words[3])
        else { continue }
        figures[String(words[0])] = (median / 1e9, bulk / 1e9, hits)
    }
    return figures
}

/// A benchmark that cannot go on, with the reason.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Every run draws the same regions from LocationState's seeded generator.
extension SplitMix64 {
    /// A number in `low ..< high`.
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
