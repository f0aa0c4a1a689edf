import Foundation

/// `locationd replay FILE --speed max --format json` against `gpsdecode < FILE`, on at least 100 MB of NMEA.
///
/// The file repeats the project's SampleTracks/*.nmea (GGA and RMC per epoch, with
/// the corrupt track's noise) until it reaches 100 MB. Both commands write to
/// /dev/null; the runs alternate, five each, and the medians are compared.
func replayBenchmark() async throws {
    let locationd = try releaseLocationd()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-replay-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = try repeatedSampleTracks(into: directory, bytes: 100_000_000)
    let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
    let megabytes = Double(size) / 1e6
    let rounds = 5
    var ours: [Double] = []
    var peer: [Double] = []
    for round in 1...rounds {
        let replay = try runProcess(
            locationd.path, ["replay", file.path, "--speed", "max", "--format", "json"], stdoutToNull: true)
        guard replay.status == 0 else { throw BenchmarkError("locationd replay failed: \(replay.stderr)") }
        ours.append(replay.seconds)
        let decode = try runProcess("/bin/sh", ["-c", "exec gpsdecode < \"$0\" > /dev/null", file.path])
        guard decode.status == 0 else { throw BenchmarkError("gpsdecode failed: \(decode.stderr)") }
        peer.append(decode.seconds)
        print(
            String(format: "run %d: locationd replay %.3f s, gpsdecode %.3f s", round, replay.seconds, decode.seconds))
    }
    let ourMedian = percentiles(ours).median
    let peerMedian = percentiles(peer).median
    print(String(format: "file: %.1f MB of NMEA (SampleTracks repeated)", megabytes))
    print(
        String(
            format: "locationd replay --speed max --format json: median %.3f s, %.1f MB/s", ourMedian,
            megabytes / ourMedian))
    print(
        String(
            format: "gpsdecode:                                  median %.3f s, %.1f MB/s", peerMedian,
            megabytes / peerMedian))
    print(
        String(
            format: "replay: ratio %.1f vs gpsdecode (%.1f MB/s ours, %.1f MB/s gpsdecode)", peerMedian / ourMedian,
            megabytes / ourMedian, megabytes / peerMedian))
}

/// `SampleTracks/*.nmea` repeated into `directory/replay.nmea` until it holds at least `bytes`.
func repeatedSampleTracks(into directory: URL, bytes: Int) throws -> URL {
    let tracks = rootPackage.appendingPathComponent("SampleTracks")
    let names = try FileManager.default.contentsOfDirectory(atPath: tracks.path).filter { $0.hasSuffix(".nmea") }
        .sorted()
    var sample = Data()
    for name in names { sample.append(try Data(contentsOf: tracks.appendingPathComponent(name))) }
    guard !sample.isEmpty else { throw BenchmarkError("no SampleTracks/*.nmea to repeat") }
    let file = directory.appendingPathComponent("replay.nmea")
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
        throw BenchmarkError("cannot create \(file.path)")
    }
    let handle = try FileHandle(forWritingTo: file)
    var size = 0
    while size < bytes {
        try handle.write(contentsOf: sample)
        size += sample.count
    }
    try handle.close()
    return file
}
