import Foundation
import LocationState

/// The daemon's footprint under a 10 Hz fix stream, next to the gpsd that feeds it, in
/// three configurations: the HTTP server on (the default, no client), `--http off`, and
/// MQTT on (a real Mosquitto on a free loopback port).
///
/// For each, gpsfake feeds a fresh gpsd a 10 Hz track; `locationd run --source gpsd
/// --record` reads it with every listener on. After a warm-up, CPU time is measured over a
/// window with the scheduler's counters (see ``ThreadCPU``) and scaled to an hour;
/// resident memory is read at the end (now and peak).
/// Each configuration's ratio is against its own gpsd, measured in the same window.
func daemonBenchmark() async throws {
    let window = Double(ProcessInfo.processInfo.environment["LOCATIOND_BENCH_SECONDS"] ?? "") ?? 60
    print("window: \(Int(window)) s at 10 Hz per configuration")
    var results: [(name: String, footprint: DaemonFootprint)] = []
    results.append(("http on", try await daemonFootprint(name: "daemon-http", window: window, arguments: [])))
    results.append(
        ("http off", try await daemonFootprint(name: "daemon-nohttp", window: window, arguments: ["--http", "off"])))
    let broker = try BenchMosquitto()
    defer { broker.stop() }
    let mqtt = try await daemonFootprint(
        name: "daemon-mqtt", window: window, arguments: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)"])
    results.append(("mqtt on", mqtt))
    for (name, footprint) in results {
        print(
            String(
                format:
                    "daemon (%@): ratio %.2f vs gpsd (resident memory ours/gpsd; CPU ours/gpsd %.2f; %.1f vs %.1f MiB, peak %.1f vs %.1f MiB, %.1f vs %.1f CPU s/h)",
                name, footprint.memoryRatio, footprint.cpuRatio, footprint.ours.mebibytes, footprint.gpsd.mebibytes,
                footprint.ours.peakMebibytes, footprint.gpsd.peakMebibytes, footprint.ours.cpuSecondsPerHour,
                footprint.gpsd.cpuSecondsPerHour))
    }
    let worst = results.max { $0.footprint.memoryRatio < $1.footprint.memoryRatio }!
    print(
        String(
            format:
                "daemon: ratio %.2f vs gpsd (the largest resident memory ours/gpsd, %@; CPU ours/gpsd at most %.2f)",
            worst.footprint.memoryRatio, worst.name, results.map(\.footprint.cpuRatio).max()!))
}

/// One process's footprint over a window.
struct ProcessFootprint {
    let mebibytes: Double
    let peakMebibytes: Double
    let cpuSecondsPerHour: Double
}

/// The daemon's footprint and its gpsd's, over the same window.
struct DaemonFootprint {
    let ours: ProcessFootprint
    let gpsd: ProcessFootprint
    var memoryRatio: Double { ours.mebibytes / gpsd.mebibytes }
    var cpuRatio: Double { ours.cpuSecondsPerHour / max(gpsd.cpuSecondsPerHour, 1e-9) }
}

/// Runs a rig with `arguments` for the daemon, waits 5 s, and measures over `window` seconds.
private func daemonFootprint(name: String, window: Double, arguments: [String]) async throws -> DaemonFootprint {
    // Three sentences an epoch, one every 1/30 s: a 10 Hz receiver; every listener on.
    let rig = try GPSDRig(name: name, epochs: 6000, rate: 10, daemonArguments: ["--record"] + arguments)
    defer { rig.stop() }
    guard let gpsd = childProcess(of: rig.gpsfake.processIdentifier, named: "gpsd") else {
        throw BenchmarkError("gpsfake's gpsd not found")
    }
    try await Task.sleep(for: .seconds(5))
    let daemon = rig.daemon.processIdentifier
    guard let ourStart = ProcessStat(pid: daemon), let peerStart = ProcessStat(pid: gpsd) else {
        throw BenchmarkError("a process ended early")
    }
    let (ourCPU, peerCPU) = (ThreadCPU(pid: daemon), ThreadCPU(pid: gpsd))
    let start = Date()
    try await Task.sleep(for: .seconds(window))
    let (ourSeconds, peerSeconds) = (ourCPU.stop(), peerCPU.stop())
    guard let ourEnd = ProcessStat(pid: daemon), let peerEnd = ProcessStat(pid: gpsd) else {
        throw BenchmarkError("a process ended during the measurement")
    }
    let hours = Date().timeIntervalSince(start) / 3600
    let status = try runProcess(rig.locationd.path, ["last", "--data-dir", rig.data])
    guard status.status == 0 else { throw BenchmarkError("\(name): no live fix at the end of the window") }
    func footprint(_ end: ProcessStat, cpuSeconds: Double) -> ProcessFootprint {
        let mib = 1024.0 * 1024
        return ProcessFootprint(
            mebibytes: Double(end.residentBytes) / mib, peakMebibytes: Double(end.peakResidentBytes) / mib,
            cpuSecondsPerHour: cpuSeconds / hours)
    }
    let result = DaemonFootprint(
        ours: footprint(ourEnd, cpuSeconds: ourSeconds), gpsd: footprint(peerEnd, cpuSeconds: peerSeconds))
    print(
        String(
            format:
                "%@: locationd RSS %.1f MiB (peak %.1f), CPU %.1f s/h (in ticks %.1f); gpsd RSS %.1f MiB (peak %.1f), CPU %.1f s/h (in ticks %.1f)",
            name, result.ours.mebibytes, result.ours.peakMebibytes, result.ours.cpuSecondsPerHour,
            (ourEnd.cpuSeconds - ourStart.cpuSeconds) / hours, result.gpsd.mebibytes, result.gpsd.peakMebibytes,
            result.gpsd.cpuSecondsPerHour, (peerEnd.cpuSeconds - peerStart.cpuSeconds) / hours))
    return result
}
