import Foundation

/// The daemon's footprint under a 10 Hz fix stream, next to the gpsd that feeds it.
///
/// gpsfake feeds a real gpsd a 10 Hz track (looped); `locationd run --source gpsd`
/// reads it with every listener on. After a warm-up, CPU time is sampled over a
/// window and scaled to an hour; resident memory is read at the end (now and peak).
func daemonBenchmark() async throws {
    let window = Double(ProcessInfo.processInfo.environment["LOCATIOND_BENCH_SECONDS"] ?? "") ?? 60
    // Three sentences an epoch, one every 1/30 s: a 10 Hz receiver; every listener on.
    let rig = try GPSDRig(name: "daemon", epochs: 6000, rate: 10, daemonArguments: ["--record"])
    defer { rig.stop() }
    let (locationd, data, gpsfake, daemon) = (rig.locationd, rig.data, rig.gpsfake, rig.daemon)
    guard let gpsd = childProcess(of: gpsfake.processIdentifier, named: "gpsd") else {
        throw BenchmarkError("gpsfake's gpsd not found")
    }
    try await Task.sleep(for: .seconds(5))
    guard let ourStart = ProcessStat(pid: daemon.processIdentifier), let peerStart = ProcessStat(pid: gpsd) else {
        throw BenchmarkError("a process ended early")
    }
    let start = Date()
    try await Task.sleep(for: .seconds(window))
    guard let ourEnd = ProcessStat(pid: daemon.processIdentifier), let peerEnd = ProcessStat(pid: gpsd) else {
        throw BenchmarkError("a process ended during the measurement")
    }
    let hours = Date().timeIntervalSince(start) / 3600
    let ourCPU = (ourEnd.cpuSeconds - ourStart.cpuSeconds) / hours
    let peerCPU = (peerEnd.cpuSeconds - peerStart.cpuSeconds) / hours
    let mib = 1024.0 * 1024
    let status = try runProcess(locationd.path, ["last", "--data-dir", data, "--json"])
    print("window: \(Int(window)) s at 10 Hz; last fix: \(status.stdout.prefix(120))")
    print(
        String(
            format: "locationd: RSS %.1f MiB (peak %.1f MiB), CPU %.1f s/h", Double(ourEnd.residentBytes) / mib,
            Double(ourEnd.peakResidentBytes) / mib, ourCPU))
    print(
        String(
            format: "gpsd:      RSS %.1f MiB (peak %.1f MiB), CPU %.1f s/h", Double(peerEnd.residentBytes) / mib,
            Double(peerEnd.peakResidentBytes) / mib, peerCPU))
    print(
        String(
            format: "daemon: ratio %.2f vs gpsd (resident memory ours/gpsd; CPU ours/gpsd %.2f; %.1f vs %.1f MiB, %.1f vs %.1f CPU s/h)",
            Double(ourEnd.residentBytes) / Double(peerEnd.residentBytes), ourCPU / max(peerCPU, 1e-9),
            Double(ourEnd.residentBytes) / mib, Double(peerEnd.residentBytes) / mib, ourCPU, peerCPU))
}
