import Foundation

/// `locationd replay --timeline` against gpxpy + trackintel's sliding staypoints
/// (`scripts/trackintel-staypoints 100 300 900`) on the same GPX files, end to end.
///
/// Each runs once over all the files, as a user would run it (one `locationd replay` of
/// the files one after the other as one track; one Python start); `replay` without
/// `--timeline` runs too, for the motion state's cost. The runs alternate, `rounds` each,
/// and the medians are compared.
struct StaypointComparison {
    /// Median seconds: `replay --timeline` over all files, `replay` alone, the peer.
    var ours = 0.0
    var bare = 0.0
    var theirs = 0.0
    /// locationd's timeline summary, and trackintel's staypoints, over all the files.
    var ourStays = ""
    var theirStays = 0

    init(locationd: URL, files: [URL], rounds: Int) throws {
        let script = rootPackage.appendingPathComponent("scripts/trackintel-staypoints").path
        var timeline: [Double] = []
        var plain: [Double] = []
        var peer: [Double] = []
        for round in 1...rounds {
            let paths = files.map(\.path)
            let ours = try runProcess(
                locationd.path, ["replay"] + paths + ["--speed", "max", "--format", "json", "--timeline"],
                stdoutToNull: true)
            guard ours.status == 0 else { throw BenchmarkError("locationd replay --timeline failed: \(ours.stderr)") }
            // "locationd: FILE (or N files): timeline: 15 stays, ...": what follows "timeline: ".
            let summary = ours.stderr.split(separator: "\n").first { $0.contains("timeline:") }
            ourStays = summary?.range(of: "timeline: ").map { String(summary![$0.upperBound...]) } ?? ""
            let bare = try runProcess(
                locationd.path, ["replay"] + paths + ["--speed", "max", "--format", "json"], stdoutToNull: true)
            guard bare.status == 0 else { throw BenchmarkError("locationd replay failed: \(bare.stderr)") }
            let seconds = (timeline: ours.seconds, plain: bare.seconds)
            timeline.append(seconds.timeline)
            plain.append(seconds.plain)
            let reference = try runProcess(
                "/usr/bin/env", ["python3", script, "100", "300", "900"] + files.map(\.path))
            guard reference.status == 0 else {
                throw BenchmarkError("trackintel-staypoints failed: \(reference.stderr)")
            }
            peer.append(reference.seconds)
            theirStays = reference.stdout.components(separatedBy: "\"start\"").count - 1
            print(
                String(
                    format: "run %d: replay --timeline %.3f s, replay %.3f s, gpxpy + trackintel %.3f s", round,
                    seconds.timeline, seconds.plain, reference.seconds))
        }
        (ours, bare, theirs) = (percentiles(timeline).median, percentiles(plain).median, percentiles(peer).median)
    }
}
