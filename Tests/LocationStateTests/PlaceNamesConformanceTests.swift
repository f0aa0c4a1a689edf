import Foundation
import LocationTestSupport
import Testing

@testable import LocationRegions
@testable import LocationState

/// Why reverse_geocoder cannot run here, or nil when it can.
let reverseGeocoderMissing: String? = {
    guard let run = try? runProgramBlocking("/usr/bin/env", ["python3", "-c", "import reverse_geocoder"]) else {
        return "python3 cannot be run"
    }
    return run.status == 0 ? nil : "reverse_geocoder is not installed (scripts/bootstrap installs it with pip)"
}()

/// locationd's place names against reverse_geocoder itself (`scripts/reverse-geocoder-check`),
/// which reads the same GeoNames extract: 100,000 points over land (each within a quarter of
/// a degree of a place drawn at random, from a seed) must be named by the same place for at
/// least 99.5% of them.
@Suite(
    .timeLimit(.minutes(5)),
    .disabled(if: reverseGeocoderMissing != nil, Comment(rawValue: reverseGeocoderMissing ?? "")))
struct PlaceNamesConformanceTests {
    @Test func theSamePlaceAsReverseGeocoder() async throws {
        let places = try PlaceNames(path: PlaceNamesTests.path)
        var random = Xorshift(seed: 7)
        var points: [(Double, Double)] = []
        // Places drawn by the nearest to a random probe, then a point near each.
        // The loops yield now and then: 100,000 look-ups in a debug build held a thread of
        // the cooperative pool for a minute of a loaded run, in which other tests' waits ran out.
        while points.count < 100_000 {
            if points.count % 1000 == 0 { await Task.yield() }
            let lat = random.uniform(-60, 70)
            let lon = random.uniform(-180, 180)
            guard let anchor = places.nearestCoordinates(lat: lat, lon: lon) else { continue }
            points.append(
                (
                    Double(anchor.0) / 1e5 + random.uniform(-0.25, 0.25),
                    Double(anchor.1) / 1e5 + random.uniform(-0.25, 0.25)
                ))
        }
        let directory = try TemporaryDirectory()
        let input = directory.path + "/points"
        try points.map { String(format: "%.6f %.6f\n", $0.0, $0.1) }.joined()
            .write(toFile: input, atomically: true, encoding: .utf8)
        let script = Repository.root.appendingPathComponent("scripts/reverse-geocoder-check").path
        let run = try await runProgram("/bin/sh", ["-c", "\(script) < \(input)"])
        #expect(run.status == 0, "\(run.stderr)")
        let theirs = run.stdout.split(separator: "\n").map { line -> (Int32, Int32) in
            let parts = line.split(separator: ",").map {
                Int32((Double($0) ?? .nan) * 1e5 + ($0.hasPrefix("-") ? -0.5 : 0.5))
            }
            return (parts[0], parts[1])
        }
        try #require(theirs.count == points.count)
        var same = 0
        for (index, (point, their)) in zip(points, theirs).enumerated() {
            if index % 1000 == 0 { await Task.yield() }
            // The points as the script read them: six decimals.
            let (lat, lon) = ((point.0 * 1e6).rounded() / 1e6, (point.1 * 1e6).rounded() / 1e6)
            if let ours = places.nearestCoordinates(lat: lat, lon: lon), ours == their { same += 1 }
        }
        let agreement = Double(same) / Double(points.count)
        #expect(agreement >= 0.995, "the same place for \(same) of \(points.count) points")
    }
}
