import Foundation
import Synchronization

/// The timeline's own cost per fix, and a month parked at 10 Hz through it in constant memory.
///
/// - Cost: one parked day (864,000 epochs, ``ParkedNMEA``) from a file, `locationd replay
///   --speed max --format json` with and without `--timeline`, three alternating runs; the
///   difference of the median CPU times over the fixes is what the motion reducer and the
///   stay and trip bookkeeping cost a fix.
/// - Memory: 30 days (25.9 million epochs, 3.8 GB of NMEA) written into `replay /dev/stdin
///   --timeline` through a pipe as it reads them, its resident memory read every second;
///   the run fails unless the highest of the last 15 days is within 1 MiB of the highest
///   of the first 15, and the month is one stay, still open at the end.
///
/// The peer is the bare replay: `timeline-month: ratio R vs replay without --timeline`.
func timelineMonthBenchmark() async throws {
    let locationd = try releaseLocationd()
    let generator = ParkedNMEA()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "locationd-bench-timeline-month-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let day = directory.appendingPathComponent("parked-day.nmea")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(ParkedNMEA.epochsPerDay * 150)
    generator.append(epochs: 0..<ParkedNMEA.epochsPerDay, to: &bytes)
    try Data(bytes).write(to: day)
    print("one parked day: \(ParkedNMEA.epochsPerDay) epochs at 10 Hz, \(bytes.count / 1_000_000) MB of NMEA")
    bytes = []

    var with: [Double] = []
    var without: [Double] = []
    for _ in 1...3 {
        for timeline in [false, true] {
            let run = try runProcess(
                locationd.path,
                ["replay", day.path, "--speed", "max", "--format", "json"] + (timeline ? ["--timeline"] : []),
                stdoutToNull: true)
            guard run.status == 0 else { throw BenchmarkError("replay failed: \(run.stderr)") }
            if timeline { with.append(run.cpuSeconds) } else { without.append(run.cpuSeconds) }
        }
    }
    let (ours, bare) = (percentiles(with).median, percentiles(without).median)
    let fixes = Double(ParkedNMEA.epochsPerDay)
    print(
        String(
            format: "timeline's cost: %.3f us a fix (replay %.3f s of CPU with --timeline, %.3f s without; "
                + "%.3f us a fix in all)", max(0, ours - bare) / fixes * 1e6, ours, bare, ours / fixes * 1e6))

    let month = try MonthThroughAPipe(locationd: locationd, generator: generator, days: 30)
    let resident = month.residentAfterDay.map { Double($0) / 1_048_576 }
    print(
        "resident MiB after each day: "
            + resident.map { String(format: "%.1f", $0) }.joined(separator: " "))
    print(
        String(
            format: "the month: %d epochs in %.1f s, peak %.1f MiB resident, %@",
            30 * ParkedNMEA.epochsPerDay, month.seconds, Double(month.peakResident) / 1_048_576, month.timeline))
    // The replay's memory moves with what waits between its reader and its pipeline; a cost
    // per fix kept would climb through the month (26 million fixes: 25 MB a byte a fix).
    let (firstHalf, secondHalf) = (resident.prefix(15).max() ?? 0, resident.suffix(15).max() ?? 0)
    let growth = secondHalf - firstHalf
    let flat = growth <= 1
    print(
        String(
            format: "timeline-month: ratio %.2f vs replay without --timeline (CPU %.3f against %.3f s a day; "
                + "a month parked: the highest resident memory of days 16-30 %+.1f MiB against days 1-15, %@)",
            ours / bare, ours, bare, growth, flat ? "flat" : "NOT FLAT"))
    guard flat else { throw BenchmarkError(String(format: "the replay's memory grew by %.1f MiB", growth)) }
    guard month.timeline.contains("a stay since 2026-11-01") else {
        throw BenchmarkError("a month parked is not one open stay: \(month.timeline)")
    }
}

/// `locationd replay /dev/stdin --timeline` fed `days` of ``ParkedNMEA`` through a pipe.
private struct MonthThroughAPipe {
    /// The replay's resident memory when each day had been written into the pipe.
    var residentAfterDay: [Int] = []
    var peakResident = 0
    var seconds = 0.0
    /// The replay's summary of the timeline (its stderr line).
    var timeline = ""

    init(locationd: URL, generator: ParkedNMEA, days: Int) throws {
        let process = Process()
        process.executableURL = locationd
        process.arguments = ["replay", "/dev/stdin", "--speed", "max", "--format", "json", "--timeline"]
        process.environment = childEnvironment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let start = ContinuousClock.now
        try process.run()
        let pid = process.processIdentifier
        let stderr = Mutex<[UInt8]>([])
        let reader = Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            stderr.withLock { $0 = Array(data) }
        }
        reader.start()
        let peak = Mutex(0)
        let sampling = Atomic<Bool>(true)
        Thread.detachNewThread {
            while sampling.load(ordering: .relaxed) {
                if let stat = ProcessStat(pid: pid) { peak.withLock { $0 = max($0, stat.residentBytes) } }
                Thread.sleep(forTimeInterval: 1)
            }
        }
        let output = input.fileHandleForWriting
        var chunk: [UInt8] = []
        chunk.reserveCapacity(ParkedNMEA.epochsPerDay / 24 * 150)
        for day in 0..<days {
            for hour in 0..<24 {
                let first = day * ParkedNMEA.epochsPerDay + hour * ParkedNMEA.epochsPerDay / 24
                chunk.removeAll(keepingCapacity: true)
                generator.append(epochs: first..<first + ParkedNMEA.epochsPerDay / 24, to: &chunk)
                try output.write(contentsOf: chunk)
            }
            residentAfterDay.append(ProcessStat(pid: pid)?.residentBytes ?? 0)
        }
        try output.close()
        process.waitUntilExit()
        sampling.store(false, ordering: .relaxed)
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        seconds = (ContinuousClock.now - start).inSeconds
        peakResident = peak.withLock { $0 }
        let text = String(decoding: stderr.withLock { $0 }, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw BenchmarkError("replay /dev/stdin failed: \(text)") }
        timeline =
            text.split(separator: "\n").first { $0.contains("timeline:") }.map {
                String($0.split(separator: "timeline: ", maxSplits: 1).last ?? "")
            } ?? "no timeline line"
    }
}
