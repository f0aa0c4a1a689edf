import Foundation
import LocationState

/// 100 clients on `GET /api/v1/events` while gpsfake feeds a real gpsd a 10 Hz track
/// and `locationd run --source gpsd` reads it: every client must get every fix, in
/// order; the daemon's resident memory and CPU next to gpsd's in the same run.
///
/// Each client is a plain TCP connection on a thread of its own that parses the
/// event stream and keeps each `fix` event's `time`. Over the window in which every
/// client was connected, a client has a gap for each fix time some client got and it
/// did not, and is out of order for each fix not later than the one before it.
/// Separately, the fixes all clients together got are checked for holes (a step over
/// 0.15 s in a 10 Hz track): fixes the daemon never sent, which no client could get.
func httpEventsBenchmark() async throws {
    let window = Double(ProcessInfo.processInfo.environment["LOCATIOND_BENCH_SECONDS"] ?? "") ?? 30
    let clientCount = 100
    let port = try freeLoopbackPort()
    let rig = try GPSDRig(
        name: "http-events", epochs: Int(window + 120) * 10, rate: 10,
        daemonArguments: ["--http", "127.0.0.1:\(port)"])
    defer { rig.stop() }
    guard let gpsd = childProcess(of: rig.gpsfake.processIdentifier, named: "gpsd") else {
        throw BenchmarkError("gpsfake's gpsd not found")
    }
    let clients = try (0..<clientCount).map { _ in try EventClient(port: port) }
    for client in clients { client.start() }
    try waitFor("\(clientCount) event streams with a fix each", seconds: 30) {
        clients.allSatisfy { $0.fixCount > 0 }
    }
    guard let ourStart = ProcessStat(pid: rig.daemon.processIdentifier), let peerStart = ProcessStat(pid: gpsd) else {
        throw BenchmarkError("a process ended early")
    }
    let start = Date()
    try await Task.sleep(for: .seconds(window))
    guard let ourEnd = ProcessStat(pid: rig.daemon.processIdentifier), let peerEnd = ProcessStat(pid: gpsd) else {
        throw BenchmarkError("a process ended during the measurement")
    }
    let elapsed = Date().timeIntervalSince(start)
    for client in clients { client.stop() }
    let received = clients.map(\.fixTimes)

    // The window every client saw whole: from the latest first fix to the earliest last one.
    guard let from = received.compactMap(\.first).max(), let to = received.compactMap(\.last).min(), from < to else {
        throw BenchmarkError("the clients have no fix time in common")
    }
    let union = Set(received.flatMap { $0.filter { (from...to).contains($0) } })
    var gaps = 0
    var outOfOrder = 0
    var clientsWithGaps = 0
    for times in received {
        let inside = times.filter { (from...to).contains($0) }
        outOfOrder += zip(inside, inside.dropFirst()).filter { $0 >= $1 }.count
        let missing = union.count - Set(inside).count
        gaps += missing
        if missing > 0 { clientsWithGaps += 1 }
    }
    let sorted = union.sorted()
    let sourceHoles = zip(sorted, sorted.dropFirst()).filter { seconds($1) - seconds($0) > 0.15 }.count

    let mib = 1024.0 * 1024
    let ourCPU = ourEnd.cpuSeconds - ourStart.cpuSeconds
    let peerCPU = peerEnd.cpuSeconds - peerStart.cpuSeconds
    print(
        "window: \(Int(elapsed)) s at 10 Hz, \(clientCount) event streams; fixes in the common window: \(union.count) "
            + "(\(from) to \(to)), holes in the union (fixes no client got): \(sourceHoles)")
    print(
        "clients: gaps \(gaps) (in \(clientsWithGaps) clients), out of order \(outOfOrder), dropped \(clients.filter(\.ended).count)"
    )
    print(
        String(
            format: "locationd: RSS %.1f MiB (peak %.1f MiB), CPU %.2f s in the window (%.1f%%)",
            Double(ourEnd.residentBytes) / mib, Double(ourEnd.peakResidentBytes) / mib, ourCPU, ourCPU / elapsed * 100))
    print(
        String(
            format: "gpsd:      RSS %.1f MiB (peak %.1f MiB), CPU %.2f s in the window (%.1f%%)",
            Double(peerEnd.residentBytes) / mib, Double(peerEnd.peakResidentBytes) / mib, peerCPU,
            peerCPU / elapsed * 100))
    print(
        String(
            format:
                "http-events: ratio %.2f vs gpsd (resident memory ours/gpsd; CPU ours/gpsd %.2f; %d clients, %d fixes each, gaps %d, out of order %d)",
            Double(ourEnd.residentBytes) / Double(peerEnd.residentBytes), ourCPU / max(peerCPU, 1e-9), clientCount,
            union.count, gaps, outOfOrder))
}

/// Seconds of the day of an ISO 8601 time `…THH:MM:SS.mmmZ`.
private func seconds(_ time: String) -> Double {
    let clock = time.split(separator: "T").last?.dropLast() ?? ""
    let parts = clock.split(separator: ":").compactMap { Double($0) }
    guard parts.count == 3 else { return 0 }
    return parts[0] * 3600 + parts[1] * 60 + parts[2]
}
