import Foundation
import LocationFormats
import LocationState

/// Peak resident memory of `locationd replay --data-dir` and `locationd tiles` on a
/// 2 M-tile history, beside the `sqlite3` shell exporting the same rows (the
/// target: memory flat whatever the history, under 64 MB).
///
/// The history comes from a replay: 2,002,225 fixes, one at the centre of each tile
/// of a 1415 x 1415 block at zoom 17, each 61 s after the one before (past the tile
/// logger's 60 s gap, so no two are joined): 2,002,225 tiles at zoom 17 and about
/// 31,000 at zoom 14. Peak resident memory is the kernel's `ru_maxrss` from `wait4`.
func tilesMemory() async throws {
    let locationd = try releaseLocationd()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-tiles-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let track = directory.appendingPathComponent("grid.nmea").path
    let side = 1415
    try writeGridTrack(to: track, side: side)
    let data = directory.appendingPathComponent("data").path

    let replay = try peakResident(
        locationd.path, ["replay", track, "--speed", "max", "--format", "json", "--data-dir", data])
    guard replay.status == 0 else {
        throw BenchmarkError("locationd replay failed with status \(replay.status): \(replay.said)")
    }
    let database = data + "/tiles.sqlite"
    let count = try runProcess("/usr/bin/env", ["sqlite3", database, "SELECT count(*) FROM tile"])
    print("history: \(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) tiles (zooms 14 and 17)")
    print(
        String(
            format: "replay --speed max --data-dir (%d fixes): peak %.1f MB, %.1f s", side * side, replay.megabytes,
            replay.seconds))

    var worst = replay.megabytes
    for (name, arguments) in [
        ("tiles (txt)", ["tiles", "--data-dir", data]),
        ("tiles --format csv", ["tiles", "--data-dir", data, "--format", "csv"]),
        ("tiles --format geojson", ["tiles", "--data-dir", data, "--format", "geojson"]),
        ("tiles --stats", ["tiles", "--data-dir", data, "--stats"]),
    ] {
        let run = try peakResident(locationd.path, arguments)
        guard run.status == 0 else {
            throw BenchmarkError("locationd \(name) failed with status \(run.status): \(run.said)")
        }
        worst = max(worst, run.megabytes)
        print(
            name.padding(toLength: 25, withPad: " ", startingAt: 0)
                + String(format: "peak %.1f MB, %.1f s", run.megabytes, run.seconds))
    }
    let peer = try peakResident(
        "/usr/bin/env",
        ["sqlite3", "-csv", database, "SELECT zoom, x, y, firstSeen, lastSeen, visits FROM tile ORDER BY zoom, x, y"])
    print(String(format: "sqlite3 -csv export:     peak %.1f MB, %.1f s", peer.megabytes, peer.seconds))
    print(
        String(
            format:
                "tiles-memory: ratio %.2f vs sqlite3 (worst locationd peak %.1f MB, sqlite3 %.1f MB; target under 64 MB)",
            worst / peer.megabytes, worst, peer.megabytes))
}

/// Writes the grid track: GGA and RMC per fix, as the track recorder writes them.
private func writeGridTrack(to path: String, side: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw BenchmarkError("cannot create \(path)")
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let writer = NMEAWriter()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(1 << 20)
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    var index = 0
    for row in 0..<side {
        for column in 0..<side {
            let bounds = Tile(zoom: 17, x: 70_000 + column, y: 42_000 + row)!.bounds
            let fix = Location(
                time: start.addingTimeInterval(Double(index) * 61), mode: .threeD,
                lat: (bounds.maxLat + bounds.minLat) / 2, lon: (bounds.minLon + bounds.maxLon) / 2, eph: 5,
                source: .gpsd)
            writer.append(fix, to: &bytes)
            index += 1
            if bytes.count >= 1 << 20 {
                try handle.write(contentsOf: bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
    }
    try handle.write(contentsOf: bytes)
}

/// Runs a program with stdout to /dev/null and stderr to a temporary file; its exit
/// status, peak resident memory (`ru_maxrss` from `wait4`), wall time, and the last line
/// it wrote on stderr (what a failure says).
private func peakResident(_ path: String, _ arguments: [String]) throws -> (
    status: Int32, megabytes: Double, seconds: Double, said: String
) {
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-\(getpid()).stderr")
    defer { try? FileManager.default.removeItem(at: errors) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = withChildEnvironment { posix_spawn(&pid, path, &actions, nil, argv, $0) }
    guard spawned == 0 else { throw BenchmarkError("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let said = (try? String(contentsOf: errors, encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? ""
    return (code, Double(usage.ru_maxrss) / 1024, elapsed.inSeconds, said)
}
