import Foundation
import LocationProviders
import LocationRegions
import LocationState
import LocationTimeline
import Logging

/// Stay names: `PlaceNames` (GeoNames' populated places in `dist/places.bin`, mapped) against
/// reverse_geocoder 1.5.1 (the reference, `Peers/reverse_geocoder_names.py`, mode=1) on the
/// same 100,000 points, each within a quarter degree of a place (drawn from a seed). Figures:
/// the time to open the file (median of 21) against reverse_geocoder's load, and the median
/// time of a lookup against its per-point time in one vectorized query and alone. The
/// targets: a load under 50 ms and a lookup under 5 µs. And the resident memory names add
/// (target: under 8 MB), at the first lookup and after all of them.
///
/// Then the clustering of 100,000 stays into places (`PlaceIdentity.assign`, what the
/// daemon does when a stay closes) against trackintel's `generate_locations` on the same
/// stays (`Peers/trackintel_locations.py`): 2,000 places around the world, the stays
/// scattered up to 70 m around them.
func placesBenchmark() async throws {
    try await namesBenchmark()
    try await clusteringBenchmark()
}

private func clusteringBenchmark() async throws {
    var random = SplitMix64(seed: 31)
    let anchors = (0..<2000).map { _ in (random.uniform(-55, 65), random.uniform(-180, 180)) }
    let metres = 1 / 111_195.0
    let stays = (0..<100_000).map { index -> Stay in
        let anchor = anchors[Int(random.next() % UInt64(anchors.count))]
        let (angle, distance) = (random.uniform(0, 2 * .pi), random.uniform(0, 70))
        return Stay(
            start: Date(timeIntervalSince1970: 1_794_000_000 + Double(index) * 3600),
            end: Date(timeIntervalSince1970: 1_794_001_800 + Double(index) * 3600),
            latitude: anchor.0 + distance * cos(angle) * metres,
            longitude: anchor.1 + distance * sin(angle) * metres / cos(anchor.0 * .pi / 180), radius: 5, fixes: 60)
    }
    var times: [Double] = []
    var placeCount = 0
    for _ in 0..<3 {
        let start = ContinuousClock.now
        let (_, records) = PlaceIdentity.assign(stays: stays, records: [])
        times.append(seconds(ContinuousClock.now - start))
        placeCount = records.count
    }
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-stays-\(getpid())")
    defer { try? FileManager.default.removeItem(at: input) }
    try stays.map { String(format: "%.9f %.9f\n", $0.latitude, $0.longitude) }.joined()
        .write(to: input, atomically: true, encoding: .utf8)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let peer = try runProcess(
        "/usr/bin/env", ["python3", root.appendingPathComponent("Peers/trackintel_locations.py").path, input.path])
    guard peer.status == 0,
        let figures = try JSONSerialization.jsonObject(with: Data(peer.stdout.utf8)) as? [String: Double],
        let theirs = figures["seconds"], let locations = figures["locations"]
    else { throw BenchmarkError("the trackintel peer failed: \(peer.stderr.suffix(300))") }
    let ours = median(times)
    print(String(format: "locationd  100,000 stays into %d places: %.3f s (median of 3)", placeCount, ours))
    print(String(format: "trackintel 100,000 stays into %.0f locations: %.3f s", locations, theirs))
    print(
        String(
            format: "places-clustering: ratio %.1f vs trackintel generate_locations (%.3f s vs %.3f s)", theirs / ours,
            ours, theirs))
    try storeBenchmark(stays: stays, anchors: anchors)
}

/// What the daemon does as a stay closes among the 100,000 stored: `TimelineStore.record`
/// (the stay and its place in one transaction, the places kept up stay by stay), against
/// clustering every stay again (what the store did before it kept them); and the places
/// of a timeline answer (`placeIndex` with the stay going on).
private func storeBenchmark(stays: [Stay], anchors: [(Double, Double)]) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-store-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try TimelineStore(directory: directory, logger: Logger(label: "bench"))
    try store.replaceAll(with: stays.map { .stayClosed($0) }, tracker: MotionTracker())
    _ = try store.placeIndex()
    var random = SplitMix64(seed: 37)
    var records: [Double] = []
    var answers: [Double] = []
    var next = stays.last!.end
    for _ in 0..<21 {
        let anchor = anchors[Int(random.next() % UInt64(anchors.count))]
        next = next.addingTimeInterval(3600)
        let stay = Stay(
            start: next, end: next.addingTimeInterval(1800), latitude: anchor.0 + random.uniform(-20, 20) / 111_195,
            longitude: anchor.1, radius: 5, fixes: 60)
        var start = ContinuousClock.now
        try store.record([.stayClosed(stay)], tracker: nil)
        records.append(seconds(ContinuousClock.now - start))
        var open = stay
        open.start = next.addingTimeInterval(2400)
        start = ContinuousClock.now
        _ = try store.placeIndex(extra: [open])
        answers.append(seconds(ContinuousClock.now - start))
    }
    var again: [Double] = []
    for _ in 0..<3 {
        let start = ContinuousClock.now
        _ = PlaceIdentity.assign(stays: stays, records: [])
        again.append(seconds(ContinuousClock.now - start))
    }
    print(
        String(
            format:
                "places-store: a stay closing among 100,000 stored %.2f ms median (stored with its place), the places of a timeline answer %.2f ms; clustering all again %.0f ms",
            median(records) * 1e3, median(answers) * 1e3, median(again) * 1e3))
}

private func namesBenchmark() async throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let path = root.appendingPathComponent("dist/places.bin").path
    var loads: [Double] = []
    for _ in 0..<21 {
        let start = ContinuousClock.now
        let places = try PlaceNames(path: path)
        _ = places.nearest(lat: 47.4, lon: 8.5)
        loads.append(seconds(ContinuousClock.now - start))
    }
    let places = try PlaceNames(path: path)
    var random = SplitMix64(seed: 29)
    var points: [(Double, Double)] = []
    while points.count < 100_000 {
        let probe = (random.uniform(-60, 70), random.uniform(-180, 180))
        guard let anchor = places.nearestCoordinates(lat: probe.0, lon: probe.1) else { continue }
        points.append(
            (
                Double(anchor.latitude) / 1e5 + random.uniform(-0.25, 0.25),
                Double(anchor.longitude) / 1e5 + random.uniform(-0.25, 0.25)
            ))
    }
    let memory = try namesMemory(path: path, points: points)
    var times: [Double] = []
    times.reserveCapacity(points.count)
    var found = 0
    for (lat, lon) in points {
        let start = ContinuousClock.now
        let name = places.nearest(lat: lat, lon: lon)
        times.append(seconds(ContinuousClock.now - start))
        if name != nil { found += 1 }
    }
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-places-\(getpid())")
    defer { try? FileManager.default.removeItem(at: input) }
    try points.map { String(format: "%.6f %.6f\n", $0.0, $0.1) }.joined().write(
        to: input, atomically: true, encoding: .utf8)
    let script = root.appendingPathComponent("Benchmarks/Peers/reverse_geocoder_names.py")
    let peer = try runProcess("/usr/bin/env", ["python3", script.path, input.path])
    guard peer.status == 0,
        let figures = try JSONSerialization.jsonObject(with: Data(peer.stdout.utf8)) as? [String: Double],
        let peerLoad = figures["load"], let bulk = figures["bulk"], let single = figures["single"]
    else { throw BenchmarkError("the reverse_geocoder peer failed: \(peer.stderr.suffix(300))") }
    let load = median(loads)
    let lookup = median(times)
    print(
        String(
            format: "locationd       load %.2f ms (median of 21), lookup %.2f µs median (%d of %d named)", load * 1e3,
            lookup * 1e6, found, points.count))
    print(
        String(
            format: "reverse_geocoder load %.0f ms, %.2f µs a point in one query, %.1f µs alone", peerLoad * 1e3,
            bulk * 1e6, single * 1e6))
    print(
        String(
            format:
                "places: ratio %.2f vs reverse_geocoder (lookup, ours/its vectorized per point; load %.2f ms vs %.0f ms; targets < 50 ms, < 5 µs)",
            lookup / bulk, load * 1e3, peerLoad * 1e3))
    print(
        String(
            format:
                "places-memory: +%.2f MB resident at the first lookup, +%.2f MB after %d lookups around the world (target < 8 MB)",
            Double(memory.first) / 1e6, Double(memory.all) / 1e6, points.count))
}

/// What names add to a process's resident memory (the mapped file's pages it touched and
/// what it allocated: `RssFile` plus `RssAnon`), as the daemon opens the file at its first
/// stay: after opening it and one lookup, and after a lookup at each of `points`.
private func namesMemory(path: String, points: [(Double, Double)]) throws -> (first: Int, all: Int) {
    func resident() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").filter { $0.hasPrefix("RssAnon:") || $0.hasPrefix("RssFile:") }
            .reduce(0) { $0 + (Int($1.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024 }
    }
    let before = resident()
    let names = try PlaceNames(path: path)
    _ = names.nearest(lat: 47.4, lon: 8.5)
    let first = resident()
    for (lat, lon) in points { _ = names.nearest(lat: lat, lon: lon) }
    return (first - before, resident() - before)
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
