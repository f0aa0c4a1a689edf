import Foundation

/// The root package (the parent of Benchmarks/).
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Builds `locationd` in release mode in the root package and returns the binary.
func releaseLocationd() throws -> URL {
    let build = try runProcess("/usr/bin/env", ["swift", "build", "-c", "release", "--product", "locationd",
        "--package-path", rootPackage.path])
    guard build.status == 0 else { throw BenchmarkError("swift build failed:\n\(build.stderr)") }
    return rootPackage.appendingPathComponent(".build/release/locationd")
}

/// A benchmark that cannot go on; the message says why.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a program to its end; returns its status, output and wall time.
@discardableResult
func runProcess(_ path: String, _ arguments: [String], stdoutToNull: Bool = false) throws -> (
    status: Int32, stdout: String, stderr: String, seconds: Double
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = stdoutToNull ? FileHandle.nullDevice : output
    process.standardError = errors
    let start = ContinuousClock.now
    try process.run()
    let printed = stdoutToNull ? Data() : output.fileHandleForReading.readDataToEndOfFile()
    let complained = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = ContinuousClock.now - start
    return (
        process.terminationStatus, String(decoding: printed, as: UTF8.self),
        String(decoding: complained, as: UTF8.self),
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    )
}

/// Starts a program in the background, its output discarded.
func startProcess(_ path: String, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// Stops a background process (SIGTERM, then SIGKILL after two seconds) and reaps it.
func stopProcess(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date().addingTimeInterval(2)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

/// Waits until `condition` holds, or throws after `seconds`.
func waitFor(_ what: String, seconds: Double = 30, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { throw BenchmarkError("timed out waiting for \(what)") }
        usleep(20_000)
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on right now.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw BenchmarkError("no free loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The child of `parent` named `name` (gpsfake's gpsd), once it runs.
func childProcess(of parent: pid_t, named name: String) -> pid_t? {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
    for entry in entries {
        guard let pid = pid_t(entry), let stat = ProcessStat(pid: pid) else { continue }
        if stat.name == name && stat.parent == parent { return pid }
    }
    return nil
}

/// What /proc says about a process: name, parent, CPU time, resident memory.
struct ProcessStat {
    let name: String
    let parent: pid_t
    /// User plus system CPU time, seconds.
    let cpuSeconds: Double
    /// Resident set size now and at its peak, bytes.
    let residentBytes: Int
    let peakResidentBytes: Int

    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        name = String(stat[stat.index(after: open)..<close])
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 13, let parent = pid_t(fields[1]), let user = Double(fields[11]),
            let system = Double(fields[12])
        else { return nil }
        self.parent = parent
        cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func kilobytes(_ key: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return 0 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        residentBytes = kilobytes("VmRSS")
        peakResidentBytes = kilobytes("VmHWM")
    }
}

/// An NMEA track at `rate` epochs a second (GGA, GSA and RMC per epoch), moving along a
/// straight line from Munich; correct checksums, time of day from 12:00:00.
func nmeaTrack(epochs: Int, rate: Int) -> String {
    func sentence(_ body: String) -> String {
        "$" + body + String(format: "*%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }) + "\r\n"
    }
    var text = ""
    for epoch in 0..<epochs {
        let seconds = Double(epoch) / Double(rate)
        let time = String(
            format: "%02d%02d%05.2f", 12 + Int(seconds) / 3600, Int(seconds) / 60 % 60,
            seconds.truncatingRemainder(dividingBy: 60))
        let latMinutes = 48.1173 * 60 + Double(epoch) * 0.0005
        let lonMinutes = 11.5167 * 60 + Double(epoch) * 0.0007
        let lat = String(format: "%02d%07.4f,N", Int(latMinutes / 60), latMinutes.truncatingRemainder(dividingBy: 60))
        let lon = String(format: "%03d%07.4f,E", Int(lonMinutes / 60), lonMinutes.truncatingRemainder(dividingBy: 60))
        text += sentence("GPGGA,\(time),\(lat),\(lon),1,08,0.9,545.4,M,46.9,M,,")
        text += sentence("GPGSA,A,3,04,05,09,12,17,20,24,25,,,,,1.8,0.9,1.5")
        text += sentence("GPRMC,\(time),A,\(lat),\(lon),012.0,045.0,221126,,,A")
    }
    return text
}

/// The median and the 90th percentile of `values`.
func percentiles(_ values: [Double]) -> (median: Double, p90: Double) {
    let sorted = values.sorted()
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)])
}

/// A real gpsd fed by gpsfake with a generated track, and `locationd run --source gpsd` reading it.
///
/// Both run until ``stop()``; the working directory is removed then.
final class GPSDRig {
    let locationd: URL
    let gpsfake: Process
    let daemon: Process
    let port: Int
    /// The daemon's data directory.
    let data: String
    private let work: URL

    /// Starts gpsfake with `epochs` epochs at `rate` Hz (three sentences each) and the daemon
    /// with `daemonArguments`, and waits until the daemon has a live fix.
    init(name: String, epochs: Int, rate: Int, daemonArguments: [String] = []) throws {
        locationd = try releaseLocationd()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let track = work.appendingPathComponent("track.nmea")
        try nmeaTrack(epochs: epochs, rate: rate).write(to: track, atomically: true, encoding: .ascii)
        port = try freeLoopbackPort()
        let cycle = String(format: "%.4f", 1 / Double(rate * 3))
        gpsfake = try startProcess("/usr/bin/gpsfake", ["-q", "-P", String(port), "-c", cycle, track.path])
        data = work.appendingPathComponent("data").path
        daemon = try startProcess(
            locationd.path,
            ["run", "--source", "gpsd", "--gpsd", "127.0.0.1:\(port)", "--data-dir", data] + daemonArguments)
        let (locationd, data) = (locationd, data)
        try waitFor("a live fix from the daemon", seconds: 60) {
            (try? runProcess(locationd.path, ["last", "--data-dir", data]).status) == 0
        }
    }

    /// Stops the daemon and gpsfake and removes the working directory.
    func stop() {
        stopProcess(daemon)
        stopProcess(gpsfake)
        try? FileManager.default.removeItem(at: work)
    }
}
