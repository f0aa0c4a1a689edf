import Foundation
import LocationProviders
import LocationState

/// `locationd replay FILE --timeline` against gpxpy + trackintel's sliding staypoints on the
/// same GPX, end to end, and the motion state's cost per fix beside the bare pipeline.
///
/// Two inputs, one after the other. The commuter: three days at one fix every 5 s (51,840
/// points) in one segment, nights at home, a drive, a morning at work, a walk to lunch and
/// back, an afternoon at work, the drive home; while parked the receiver wanders by a few
/// metres (a slow random walk plus an occasional multipath jump). Then GPX as loggers
/// write it (``LoggerGPX``, a day per producer). Three alternating runs each
/// (``StaypointComparison``); the medians are compared.
func timelineBenchmark() async throws {
    let locationd = try releaseLocationd()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "locationd-bench-timeline-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("commuter.gpx")
    let points = try CommuterTrack(days: 3, interval: 5).write(to: file)
    let commuter = try StaypointComparison(locationd: locationd, files: [file], rounds: 3)
    print("track: \(points) points over 3 days (GPX)")
    print("locationd: \(commuter.ourStays)")
    print("trackintel: \(commuter.theirStays) staypoints")
    print(
        String(
            format: "motion state: %.2f us a fix (replay --timeline %.3f s against %.3f s without)",
            max(0, commuter.ours - commuter.bare) / Double(points) * 1e6, commuter.ours, commuter.bare))
    print(
        String(
            format: "timeline (commuter): ratio %.1f vs gpxpy + trackintel (median %.3f s against %.3f s)",
            commuter.theirs / commuter.ours, commuter.ours, commuter.theirs))
    let logged = try LoggerGPX(days: 1).write(into: directory)
    let real = try StaypointComparison(locationd: locationd, files: logged.map(\.url), rounds: 3)
    let loggedPoints = logged.reduce(0) { $0 + $1.points }
    print("logger files: \(logged.count) files, \(loggedPoints) points, a day each (GPX as loggers write it)")
    print("locationd: \(real.ourStays)")
    print("trackintel: \(real.theirStays) staypoints")
    print(
        String(
            format: "timeline: ratio %.1f vs gpxpy + trackintel (logger files: median %.3f s against %.3f s; "
                + "commuter: %.1f)", real.theirs / real.ours, real.ours, real.theirs, commuter.theirs / commuter.ours))
}

/// A deterministic multi-day GPX track of stays with a receiver's jitter and trips between them.
struct CommuterTrack {
    var days: Int
    /// Seconds between fixes.
    var interval: Int

    private struct Place {
        var lat: Double
        var lon: Double
    }

    private static let home = Place(lat: 48.137, lon: 11.575)
    private static let work = Place(lat: 48.177, lon: 11.556)
    private static let lunch = Place(lat: 48.1795, lon: 11.5605)

    /// Writes the GPX and returns the number of points.
    func write(to url: URL) throws -> Int {
        var random = SplitMix64(seed: 2026)
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<gpx version="1.1" creator="locationd-bench" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        text += "\n"
        let start = 1_795_000_000 - 1_795_000_000 % 86_400
        // (seconds of the day the leg ends, from, to); a leg from a place to itself is a stay.
        let legs: [(Int, Place, Place)] = [
            (8 * 3600, Self.home, Self.home), (8 * 3600 + 1200, Self.home, Self.work),
            (12 * 3600, Self.work, Self.work), (12 * 3600 + 600, Self.work, Self.lunch),
            (12 * 3600 + 3300, Self.lunch, Self.lunch), (12 * 3600 + 3900, Self.lunch, Self.work),
            (17 * 3600, Self.work, Self.work), (17 * 3600 + 1500, Self.work, Self.home),
            (86_400, Self.home, Self.home),
        ]
        let formatter = ISO8601DateFormatter()
        var count = 0
        var drift = (north: 0.0, east: 0.0)
        for day in 0..<days {
            var legStart = 0
            for (legEnd, from, to) in legs {
                var second = legStart
                while second < legEnd {
                    let progress = Double(second - legStart) / Double(legEnd - legStart)
                    var lat = from.lat + (to.lat - from.lat) * progress
                    var lon = from.lon + (to.lon - from.lon) * progress
                    // A parked receiver's error: a slow random walk held within about 8 m, and a
                    // multipath jump of 20-40 m about once an hour.
                    drift.north = max(-8, min(8, drift.north + random.uniform(-0.6, 0.6)))
                    drift.east = max(-8, min(8, drift.east + random.uniform(-0.6, 0.6)))
                    var north = drift.north
                    if random.uniform(0, 1) < Double(interval) / 3600 { north += random.uniform(20, 40) }
                    lat += north / 111_195
                    lon += drift.east / (111_195 * cos(lat * .pi / 180))
                    let time = Date(timeIntervalSince1970: Double(start + day * 86_400 + second))
                    text += String(format: #"<trkpt lat="%.7f" lon="%.7f"><time>"#, lat, lon)
                    text += formatter.string(from: time) + "</time></trkpt>\n"
                    count += 1
                    second += interval
                }
                legStart = legEnd
            }
        }
        text += "</trkseg></trk></gpx>\n"
        try text.write(to: url, atomically: true, encoding: .utf8)
        return count
    }
}
