import Foundation

/// `locationd replay --timeline` against gpxpy + trackintel's sliding staypoints
/// (`scripts/trackintel-staypoints 100 300 900`) on the same GPX files, end to end.
///
/// Ours runs once per file (the command reads one), theirs once for all of them (one
/// Python start, as a user would run it); `replay` without `--timeline` runs too, for the
/// motion state's cost. The runs alternate, `rounds` each, and the medians are compared.
struct StaypointComparison {
    /// Median seconds: `replay --timeline` over all files, `replay` alone, the peer.
    var ours = 0.0
    var bare = 0.0
    var theirs = 0.0
    /// locationd's timeline summary of each file, and trackintel's staypoints over all.
    var ourStays: [String] = []
    var theirStays = 0

    init(locationd: URL, files: [URL], rounds: Int) throws {
        let script = rootPackage.appendingPathComponent("scripts/trackintel-staypoints").path
        var timeline: [Double] = []
        var plain: [Double] = []
        var peer: [Double] = []
        for round in 1...rounds {
            var seconds = (timeline: 0.0, plain: 0.0)
            ourStays = []
            for file in files {
                let ours = try runProcess(
                    locationd.path, ["replay", file.path, "--speed", "max", "--format", "json", "--timeline"],
                    stdoutToNull: true)
                guard ours.status == 0 else {
                    throw BenchmarkError("locationd replay --timeline failed: \(ours.stderr)")
                }
                seconds.timeline += ours.seconds
                // "locationd: FILE: timeline: 15 stays, ...": the file's name and what follows.
                let summary = ours.stderr.split(separator: "\n").first { $0.contains("timeline:") }
                let stays = summary?.range(of: "timeline: ").map { summary![$0.upperBound...] } ?? ""
                ourStays.append("\(file.lastPathComponent): \(stays)")
                let bare = try runProcess(
                    locationd.path, ["replay", file.path, "--speed", "max", "--format", "json"], stdoutToNull: true)
                guard bare.status == 0 else { throw BenchmarkError("locationd replay failed: \(bare.stderr)") }
                seconds.plain += bare.seconds
            }
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
