import Foundation

/// `locationd replay FILE --speed max --format json` on GPX as loggers write it
/// (``LoggerGPX``: four producers, three days each, about 40 MB): MB/s and CPU time per
/// point, file by file and over all, the median of five rounds. Beside it, the `replay`
/// benchmark's NMEA (SampleTracks repeated to 20 MB) for the CPU time per fix of the
/// other path. Last, `replay --timeline` on the same GPX files against gpxpy + trackintel
/// end to end (``StaypointComparison``).
func gpxBenchmark() async throws {
    let locationd = try releaseLocationd()
    // LOCATIOND_BENCH_GPX_DIR keeps the files there, for profiling one of them.
    let kept = ProcessInfo.processInfo.environment["LOCATIOND_BENCH_GPX_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    let directory =
        kept.map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-gpx-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { if kept == nil { try? FileManager.default.removeItem(at: directory) } }
    let files = try LoggerGPX(days: 3).write(into: directory)
    let nmea = try repeatedSampleTracks(into: directory, bytes: 20_000_000)
    var wall = Array(repeating: [Double](), count: files.count)
    var cpu = Array(repeating: [Double](), count: files.count)
    var nmeaCPU: [Double] = []
    var nmeaFixes = 0
    for round in 1...5 {
        for (index, file) in files.enumerated() {
            let run = try replay(locationd, file.url, expecting: file.points)
            wall[index].append(run.seconds)
            cpu[index].append(run.cpuSeconds)
        }
        let run = try replay(locationd, nmea, expecting: nil)
        nmeaCPU.append(run.cpuSeconds)
        nmeaFixes = run.fixes
        print(
            String(
                format: "run %d: %.3f s for the GPX files", round, (0..<files.count).reduce(0) { $0 + wall[$1].last! }))
    }
    for (index, file) in files.enumerated() {
        let (seconds, cpuSeconds) = (percentiles(wall[index]).median, percentiles(cpu[index]).median)
        print(
            file.url.lastPathComponent
                + String(
                    format: ": %d points, %.1f MB, %.1f MB/s, %.2f us CPU a point", file.points,
                    Double(file.bytes) / 1e6, Double(file.bytes) / 1e6 / seconds, cpuSeconds / Double(file.points) * 1e6
                ))
    }
    let bytes = Double(files.reduce(0) { $0 + $1.bytes }) / 1e6
    let points = files.reduce(0) { $0 + $1.points }
    let seconds = (0..<files.count).reduce(0) { $0 + percentiles(wall[$1]).median }
    let cpuPerPoint = (0..<files.count).reduce(0) { $0 + percentiles(cpu[$1]).median } / Double(points) * 1e6
    let nmeaPerFix = percentiles(nmeaCPU).median / Double(max(nmeaFixes, 1)) * 1e6
    print(
        String(
            format: "GPX: %d points, %.1f MB, %.1f MB/s, %.2f us CPU a point", points, bytes, bytes / seconds,
            cpuPerPoint))
    print(String(format: "NMEA (SampleTracks): %d fixes, %.2f us CPU a fix", nmeaFixes, nmeaPerFix))
    let comparison = try StaypointComparison(locationd: locationd, files: files.map(\.url), rounds: 3)
    print("locationd: \(comparison.ourStays)")
    print("trackintel: \(comparison.theirStays) staypoints")
    print(
        String(
            format: "gpx: ratio %.1f vs gpxpy + trackintel (replay --timeline median %.3f s against %.3f s; "
                + "replay %.1f MB/s, %.2f us CPU a point; NMEA %.2f us a fix)", comparison.theirs / comparison.ours,
            comparison.ours, comparison.theirs, bytes / seconds, cpuPerPoint, nmeaPerFix))
}

/// `locationd replay FILE --speed max --format json > /dev/null`, checked: its wall and CPU
/// time, and the fixes it counted (`expecting`: the number it must count).
private func replay(_ locationd: URL, _ file: URL, expecting points: Int?) throws -> (
    seconds: Double, cpuSeconds: Double, fixes: Int
) {
    let run = try runProcess(
        locationd.path, ["replay", file.path, "--speed", "max", "--format", "json"], stdoutToNull: true)
    guard run.status == 0 else {
        throw BenchmarkError("locationd replay \(file.lastPathComponent) failed: \(run.stderr)")
    }
    let summary = run.stderr.split(separator: "\n").last ?? ""
    let fixes = summary.split(separator: ",").first { $0.hasSuffix(" fixes") }.flatMap {
        Int($0.split(separator: " ")[0])
    }
    guard let fixes, points == nil || fixes == points else {
        throw BenchmarkError("locationd replay \(file.lastPathComponent): \(summary), expected \(points ?? 0) fixes")
    }
    return (run.seconds, run.cpuSeconds, fixes)
}
