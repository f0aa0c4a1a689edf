import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationTimeline

/// Why trackintel cannot run here, or nil when it can.
let trackintelMissing: String? = {
    guard let run = try? runProgramBlocking("/usr/bin/env", ["python3", "-c", "import trackintel, gpxpy"]) else {
        return "python3 cannot be started"
    }
    return run.status == 0 ? nil : "trackintel or gpxpy is not installed (scripts/bootstrap installs them with pip)"
}()

/// `locationd replay --timeline` against trackintel itself, on tracks made up from seeds:
/// the fixes in a stay must be those trackintel puts in a staypoint, fix for fix, and each
/// stay's centroid the mean of those fixes; within a metre of trackintel's centroid where
/// no two of them have the same coordinates (trackintel averages distinct coordinates only,
/// locationd every fix: see docs/timeline.md).
///
/// trackintel does not merge consecutive staypoints at one place; locationd does (see
/// docs/timeline.md): trackintel's staypoints are merged here by the same rule before
/// they are compared.
@Suite(
    .timeLimit(.minutes(5)),
    .enabled(if: trackintelMissing == nil, Comment(rawValue: trackintelMissing ?? "")))
struct TimelineConformanceTests {
    static let script = Repository.path("scripts/trackintel-staypoints")

    /// One set of thresholds and the seeds of the tracks made for it.
    struct Thresholds: Sendable, CustomTestStringConvertible {
        var distance: Double
        var duration: Double
        var gap: Double
        var seeds: ClosedRange<UInt64>
        var testDescription: String { "\(Int(distance)) m, \(Int(duration)) s, gap \(Int(gap)) s" }
    }

    @Test(arguments: [
        Thresholds(distance: 100, duration: 300, gap: 900, seeds: 1...8),
        Thresholds(distance: 50, duration: 120, gap: 600, seeds: 11...16),
        Thresholds(distance: 200, duration: 600, gap: 1800, seeds: 21...26),
    ])
    func staysAreTrackintelsStaypoints(_ thresholds: Thresholds) async throws {
        let directory = try TemporaryDirectory()
        var tracks: [(path: String, track: GeneratedTrack)] = []
        for seed in thresholds.seeds {
            let track = GeneratedTrack.random(
                seed: seed, segments: 40, stayDistance: thresholds.distance, stayDuration: thresholds.duration,
                stayGap: thresholds.gap)
            let path = directory.path + "/track-\(seed).gpx"
            try track.gpx.write(toFile: path, atomically: true, encoding: .utf8)
            tracks.append((path, track))
        }
        let reference = try await runProgram(
            "/usr/bin/env",
            ["python3", Self.script, "\(thresholds.distance)", "\(thresholds.duration)", "\(thresholds.gap)"]
                + tracks.map(\.path))
        try #require(reference.status == 0, "\(reference.stderr)")
        let answers = reference.stdout.split(separator: "\n")
        try #require(answers.count == tracks.count)
        var compared = 0
        for ((path, track), answer) in zip(tracks, answers) {
            let replay = try await runLocationd([
                "replay", path, "--speed", "max", "--format", "json", "--timeline",
                "--stay-distance", "\(thresholds.distance)", "--stay-duration", "\(thresholds.duration)",
                "--stay-gap", "\(thresholds.gap)", "--max-speed", "100000",
            ])
            try #require(replay.status == 0, "\(replay.stderr)")
            let ours = try Self.stays(inReplay: replay.stdout, points: track.points)
            let theirs = try Self.merged(
                Self.staypoints(answer), points: track.points, thresholds: thresholds)
            compared += try Self.compare(ours: ours, theirs: theirs, points: track.points, file: path)
        }
        // The tracks must hold stays to compare at all.
        #expect(compared >= thresholds.seeds.count * 3)
    }

    /// A stay: its interval, centroid and (for trackintel's) its fixes.
    struct StaySpan {
        var start: Double
        var end: Double
        var latitude: Double
        var longitude: Double
        var fixes: [Int]
    }

    /// Our stays, from the STAY lines of a replay; the TPV lines must be the track's points.
    static func stays(inReplay output: String, points: [GeneratedTrack.Point]) throws -> [StaySpan] {
        var stays: [StaySpan] = []
        var fixes = 0
        for line in output.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            switch object["class"] as? String {
            case "TPV":
                fixes += 1
            case "STAY":
                let start = try #require(UTCCalendar.parseISO8601(object["start"] as? String ?? ""))
                let end = try #require(UTCCalendar.parseISO8601(object["end"] as? String ?? ""))
                stays.append(
                    StaySpan(
                        start: start.timeIntervalSince1970, end: end.timeIntervalSince1970,
                        latitude: object["lat"] as? Double ?? .nan, longitude: object["lon"] as? Double ?? .nan,
                        fixes: []))
            default:
                continue
            }
        }
        try #require(fixes == points.count, "the replay printed \(fixes) fixes of \(points.count) points")
        return stays
    }

    /// trackintel's staypoints from one line of the script's output.
    static func staypoints(_ line: Substring) throws -> [StaySpan] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let list = try #require(object["staypoints"] as? [[String: Any]])
        return list.map {
            StaySpan(
                start: $0["start"] as? Double ?? .nan, end: $0["end"] as? Double ?? .nan,
                latitude: $0["lat"] as? Double ?? .nan, longitude: $0["lon"] as? Double ?? .nan,
                fixes: $0["fixes"] as? [Int] ?? [])
        }
    }

    /// trackintel's staypoints merged as locationd merges stays: a staypoint that starts
    /// within the gap of the last one's end, with its centroid when it had lasted the
    /// duration closer than the distance to the last one's, continues it.
    static func merged(_ staypoints: [StaySpan], points: [GeneratedTrack.Point], thresholds: Thresholds) -> [StaySpan] {
        func centroid(_ fixes: some Collection<Int>) -> (Double, Double) {
            let count = Double(fixes.count)
            return (
                fixes.map { points[$0].latitude }.reduce(0, +) / count,
                fixes.map { points[$0].longitude }.reduce(0, +) / count
            )
        }
        var result: [StaySpan] = []
        for staypoint in staypoints {
            guard var last = result.last, staypoint.start - last.end <= thresholds.gap else {
                result.append(staypoint)
                continue
            }
            let first = points[staypoint.fixes[0]].time
            let established =
                staypoint.fixes.firstIndex { points[$0].time - first >= thresholds.duration }
                .map { Array(staypoint.fixes[...$0]) } ?? staypoint.fixes
            let (lastLatitude, lastLongitude) = centroid(last.fixes)
            let (latitude, longitude) = centroid(established)
            let apart = SphericalEarth.distance(
                latitude1: lastLatitude, longitude1: lastLongitude, latitude2: latitude, longitude2: longitude)
            guard apart < thresholds.distance else {
                result.append(staypoint)
                continue
            }
            last.end = staypoint.end
            last.fixes += staypoint.fixes
            (last.latitude, last.longitude) = (.nan, .nan)
            result[result.count - 1] = last
        }
        return result
    }

    /// Compares fix by fix; returns how many stays matched.
    static func compare(ours: [StaySpan], theirs: [StaySpan], points: [GeneratedTrack.Point], file: String) throws
        -> Int
    {
        func inStay(_ stays: [StaySpan]) -> [Bool] {
            points.map { point in stays.contains { $0.start <= point.time + 1e-6 && point.time + 1e-6 < $0.end } }
        }
        let (mine, reference) = (inStay(ours), inStay(theirs))
        if let index = mine.indices.first(where: { mine[$0] != reference[$0] }) {
            Issue.record(
                "\(file): fix \(index) at \(points[index].time) is \(mine[index] ? "" : "not ")in a stay here, \(reference[index] ? "" : "not ")in trackintel's; ours \(ours.map { ($0.start, $0.end) }), trackintel's \(theirs.map { ($0.start, $0.end) })"
            )
            return 0
        }
        #expect(ours.count == theirs.count, "\(file)")
        func apart(_ stay: StaySpan, _ latitude: Double, _ longitude: Double) -> Double {
            SphericalEarth.pathDistance(
                latitude1: stay.latitude, longitude1: stay.longitude, latitude2: latitude, longitude2: longitude)
        }
        for (stay, staypoint) in zip(ours, theirs) {
            #expect(abs(stay.start - staypoint.start) < 0.001 && abs(stay.end - staypoint.end) < 0.001, "\(file)")
            let count = Double(staypoint.fixes.count)
            let mean = apart(
                stay, staypoint.fixes.map { points[$0].latitude }.reduce(0, +) / count,
                staypoint.fixes.map { points[$0].longitude }.reduce(0, +) / count)
            #expect(mean < 0.01, "\(file): the stay at \(stay.start) is \(mean) m from its fixes' mean")
            let distinct = Set(staypoint.fixes.map { "\(points[$0].latitude) \(points[$0].longitude)" })
            if !staypoint.latitude.isNaN, distinct.count == staypoint.fixes.count {
                let reference = apart(stay, staypoint.latitude, staypoint.longitude)
                #expect(reference < 1, "\(file): the stay at \(stay.start) is \(reference) m from trackintel's")
            }
        }
        return ours.count
    }
}
