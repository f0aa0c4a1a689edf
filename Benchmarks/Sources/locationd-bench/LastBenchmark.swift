import Foundation

/// `locationd last` against a running daemon, next to `gpspipe -w -n 5` against the gpsd that feeds it.
///
/// gpsfake feeds a real gpsd a 1 Hz track; `locationd run --source gpsd` reads it.
/// Each round times one `locationd last` (it asks the daemon over its socket) and
/// one `gpspipe -w -n 5` (which must wait for gpsd's next reports), alternating, and
/// `/bin/true` for the cost of starting a process from the benchmark, which both include.
/// A C client of the same socket (`Peers/control-last.c`, built with `cc`) shows what
/// asking costs without the start of the Swift binary. Processes are started with `posix_spawn` (see ``runProcess(_:_:stdoutToNull:)``).
func lastBenchmark() async throws {
    // Three sentences an epoch, one every 1/3 s: a 1 Hz receiver.
    let rig = try GPSDRig(name: "last", epochs: 3600, rate: 1)
    defer { rig.stop() }
    let (locationd, data, port) = (rig.locationd, rig.data, rig.port)
    let client = try buildControlClient()
    let rounds = 30
    var ours: [Double] = []
    var peer: [Double] = []
    var baseline: [Double] = []
    var minimal: [Double] = []
    for _ in 0..<rounds {
        baseline.append(try runProcess("/bin/true", []).seconds)
        let last = try runProcess(locationd.path, ["last", "--data-dir", data, "--json"])
        guard last.status == 0 else { throw BenchmarkError("locationd last failed: \(last.stderr)") }
        ours.append(last.seconds)
        let asked = try runProcess(client.path, [data + "/control.sock"], stdoutToNull: true)
        guard asked.status == 0 else { throw BenchmarkError("control-last failed: \(asked.stderr)") }
        minimal.append(asked.seconds)
        let pipe = try runProcess("/usr/bin/gpspipe", ["-w", "-n", "5", "127.0.0.1:\(port)"], stdoutToNull: true)
        guard pipe.status == 0 else { throw BenchmarkError("gpspipe failed: \(pipe.stderr)") }
        peer.append(pipe.seconds)
    }
    let (ourMedian, ourP90) = percentiles(ours)
    let (peerMedian, peerP90) = percentiles(peer)
    let (baselineMedian, _) = percentiles(baseline)
    let (minimalMedian, minimalP90) = percentiles(minimal)
    print(
        String(
            format: "locationd last:     median %.1f ms, p90 %.1f ms (%d runs)", ourMedian * 1000, ourP90 * 1000, rounds
        ))
    print(
        String(
            format: "gpspipe -w -n 5:    median %.1f ms, p90 %.1f ms (%d runs)", peerMedian * 1000, peerP90 * 1000,
            rounds))
    print(
        String(
            format: "C client, ?LAST;:   median %.1f ms, p90 %.1f ms (%d runs)", minimalMedian * 1000,
            minimalP90 * 1000, rounds))
    print(String(format: "/bin/true (posix_spawn cost, in every figure): median %.1f ms", baselineMedian * 1000))
    print(
        String(
            format: "last: ratio %.1f vs gpspipe -w -n 5 (median %.1f ms ours, %.1f ms gpspipe; higher is faster)",
            peerMedian / ourMedian, ourMedian * 1000, peerMedian * 1000))
}

/// `Peers/control-last.c`, compiled into a temporary directory.
private func buildControlClient() throws -> URL {
    let source = rootPackage.appendingPathComponent("Benchmarks/Peers/control-last.c")
    let binary = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-control-last")
    let build = try runProcess("/usr/bin/env", ["cc", "-O2", "-o", binary.path, source.path])
    guard build.status == 0 else { throw BenchmarkError("cc failed: \(build.stderr)") }
    return binary
}
