import Foundation
import LocationState

/// The root package (the parent of Benchmarks/).
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Builds `locationd` in release mode in the root package and returns the binary, or
/// returns `LOCATIOND_BENCH_BINARY` when set (to measure a given build side by side).
func releaseLocationd() throws -> URL {
    if let binary = ProcessInfo.processInfo.environment["LOCATIOND_BENCH_BINARY"], !binary.isEmpty {
        return URL(fileURLWithPath: binary)
    }
    let build = try runProcess(
        "/usr/bin/env",
        [
            "swift", "build", "-c", "release", "--product", "locationd",
            "--package-path", rootPackage.path,
        ])
    guard build.status == 0 else { throw BenchmarkError("swift build failed:\n\(build.stderr)") }
    return rootPackage.appendingPathComponent(".build/release/locationd")
}

/// A benchmark that cannot go on; the message says why.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Throws, naming the Debian package to install, unless the program at `path` is there:
/// the peers (nginx, wrk, ...) are not locationd's dependencies, and `scripts/bootstrap`
/// installs only what the tests need.
func requireProgram(_ path: String) throws {
    guard !FileManager.default.isExecutableFile(atPath: path) else { return }
    let packages = [
        "nginx": "nginx-light", "wrk": "wrk", "curl": "curl", "gpspipe": "gpsd-clients", "gpsfake": "gpsd-clients",
        "mosquitto": "mosquitto",
    ]
    let name = URL(fileURLWithPath: path).lastPathComponent
    let hint = packages[name].map { ": apt-get install \($0)" } ?? ""
    throw BenchmarkError("\(path) is not installed\(hint)")
}

/// Runs a program to its end; returns its status, output, wall time and CPU time (user
/// plus system, of the program and the children it waited for).
///
/// Started with `posix_spawn` and reaped with `wait4`, so that the time is the
/// program's own plus the kernel's cost of a process: Foundation's `Process` adds
/// tens of milliseconds of its own (it closes every possible descriptor in the
/// child and monitors the child from its run loop).
@discardableResult
func runProcess(_ path: String, _ arguments: [String], stdoutToNull: Bool = false) throws -> (
    status: Int32, stdout: String, stderr: String, seconds: Double, cpuSeconds: Double
) {
    try requireProgram(path)
    var output: [Int32] = [0, 0]
    var errors: [Int32] = [0, 0]
    guard pipe(&output) == 0, pipe(&errors) == 0 else {
        throw BenchmarkError("pipe: \(String(cString: strerror(errno)))")
    }
    // Only the ends the actions duplicate reach the child; no other thread spawns meanwhile.
    for fd in output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if stdoutToNull {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    } else {
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    }
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = withChildEnvironment { posix_spawn(&pid, path, &actions, nil, argv, $0) }
    close(output[1])
    close(errors[1])
    defer {
        close(output[0])
        close(errors[0])
    }
    guard spawned == 0 else { throw BenchmarkError("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
    let (printed, complained) = readToEnd(output[0], errors[0])
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    let cpu = [usage.ru_utime, usage.ru_stime].reduce(0.0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
    // WIFEXITED / WEXITSTATUS, which Swift does not import: an exit code, else 128 + the signal.
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (
        code, String(decoding: printed, as: UTF8.self), String(decoding: complained, as: UTF8.self),
        elapsed.inSeconds, cpu
    )
}

/// Reads two descriptors until both reach end of file, whichever writes first.
private func readToEnd(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
    var polled = [
        pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
    ]
    var read: [[UInt8]] = [[], []]
    var chunk = [UInt8](repeating: 0, count: 65536)
    while polled.contains(where: { $0.fd >= 0 }) {
        guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { break }
        for index in polled.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(polled[index].fd, $0.baseAddress, $0.count) }
            if count > 0 {
                read[index] += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                polled[index].fd = -1
            }
        }
    }
    return (read[0], read[1])
}

/// Starts a program in the background, its output discarded; `environment` is
/// added to this process's, without the benchmark's own `LOCATIOND_BENCH_...`
/// variables (`locationd run` takes every `LOCATIOND_...` variable as a setting, and
/// refuses one it does not know).
func startProcess(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Process {
    try requireProgram(path)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = childEnvironment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// This process's environment without the `LOCATIOND_BENCH_` variables.
var childEnvironment: [String: String] {
    ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LOCATIOND_BENCH_") }
}

/// ``childEnvironment`` as `posix_spawn` takes it (`NAME=value` strings, nil last), for
/// the call in `body`: a `locationd` that reads its settings (`tiles --stats` and the
/// daemon do) refuses an unknown `LOCATIOND_` variable.
func withChildEnvironment<Result>(_ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let strings = childEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { strings.forEach { free($0) } }
    return body(strings)
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

/// Connects `fd` (a TCP socket) to 127.0.0.1:`port`; true when connected.
func connectLoopback(_ fd: Int32, port: Int) -> Bool {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
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

/// A process's CPU time over a window from the scheduler's own counters: the first field
/// of `/proc/PID/task/TID/schedstat`, nanoseconds on a CPU, per thread. /proc/PID/stat
/// counts 10 ms ticks, ±20 ms over a window: at 10 Hz the daemon and gpsd use about
/// 0.1 s in 30 s, so a tick is a tenth of the answer. The threads are read every
/// quarter second, so a thread that ends in the window counts up to its last reading
/// (libdispatch ends idle worker threads), and one that starts counts from zero.
final class ThreadCPU: @unchecked Sendable {
    // @unchecked Sendable: `readings` is touched under `lock` only.
    private let pid: pid_t
    private let lock = NSLock()
    private var first: [Int: UInt64] = [:]
    private var last: [Int: UInt64] = [:]
    private var sampling = true

    /// Starts reading `pid`'s threads now, and every 0.25 s until ``stop()``.
    init(pid: pid_t) {
        self.pid = pid
        first = Self.read(pid)
        last = first
        Thread.detachNewThread { [self] in
            while lock.withLock({ sampling }) {
                Thread.sleep(forTimeInterval: 0.25)
                let now = Self.read(pid)
                lock.withLock { last.merge(now) { $1 } }
            }
        }
    }

    /// Stops reading (after a last reading) and returns the CPU seconds since the start.
    func stop() -> Double {
        let now = Self.read(pid)
        return lock.withLock {
            sampling = false
            last.merge(now) { $1 }
            let nanoseconds = last.reduce(UInt64(0)) { sum, entry in sum + (entry.value &- (first[entry.key] ?? 0)) }
            return Double(nanoseconds) / 1e9
        }
    }

    private static func read(_ pid: pid_t) -> [Int: UInt64] {
        let directory = "/proc/\(pid)/task"
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var times: [Int: UInt64] = [:]
        for task in tasks {
            guard let tid = Int(task),
                let text = try? String(contentsOfFile: "\(directory)/\(task)/schedstat", encoding: .utf8),
                let field = text.split(separator: " ").first, let nanoseconds = UInt64(field)
            else { continue }
            times[tid] = nanoseconds
        }
        return times
    }
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
/// With `rmcSkippedEvery`, the last epoch of every such many has no RMC: gpsd then learns GGA
/// as a cycle ender too and reports the other epochs twice, after GGA and after RMC (and the
/// epoch without RMC once, after GGA). With `ggaSkippedEvery`, the epoch halfway through
/// every such many has no GGA (gpsd reports it once, after RMC).
func nmeaTrack(epochs: Int, rate: Int, rmcSkippedEvery: Int? = nil, ggaSkippedEvery: Int? = nil) -> String {
    var text = ""
    for epoch in 0..<epochs {
        let latitude = 48.1173 + Double(epoch) * 0.0005 / 60
        let longitude = 11.5167 + Double(epoch) * 0.0007 / 60
        let skipsRMC = rmcSkippedEvery.map { epoch % $0 == $0 - 1 } ?? false
        let skipsGGA = ggaSkippedEvery.map { epoch % $0 == $0 / 2 - 1 } ?? false
        text += nmeaEpoch(
            seconds: Double(epoch) / Double(rate), latitude: latitude, longitude: longitude, knots: 12, course: 45,
            withGGA: !skipsGGA, withRMC: !skipsRMC)
    }
    return text
}

/// One epoch's GGA (unless `withGGA` is false), GSA and RMC (unless `withRMC` is false) on
/// 2026-11-22, `seconds` after 12:00:00, with correct checksums.
func nmeaEpoch(
    seconds: Double, latitude: Double, longitude: Double, knots: Double, course: Double, withGGA: Bool = true,
    withRMC: Bool = true
) -> String {
    let time = String(
        format: "%02d%02d%05.2f", 12 + Int(seconds) / 3600, Int(seconds) / 60 % 60,
        seconds.truncatingRemainder(dividingBy: 60))
    let latMinutes = latitude * 60
    let lonMinutes = longitude * 60
    let lat = String(format: "%02d%07.4f,N", Int(latMinutes / 60), latMinutes.truncatingRemainder(dividingBy: 60))
    let lon = String(format: "%03d%07.4f,E", Int(lonMinutes / 60), lonMinutes.truncatingRemainder(dividingBy: 60))
    var text = withGGA ? nmeaSentence("GPGGA,\(time),\(lat),\(lon),1,08,0.9,545.4,M,46.9,M,,") : ""
    text += nmeaSentence("GPGSA,A,3,04,05,09,12,17,20,24,25,,,,,1.8,0.9,1.5")
    if withRMC {
        text += nmeaSentence(
            "GPRMC,\(time),A,\(lat),\(lon),\(String(format: "%05.1f,%05.1f", knots, course)),221126,,,A")
    }
    return text
}

/// `body` as an NMEA sentence: `$`, the body, `*` and its checksum, CR LF.
func nmeaSentence(_ body: String) -> String {
    "$" + body + String(format: "*%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }) + "\r\n"
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

    /// Starts gpsfake with `epochs` epochs at `rate` Hz (three sentences each; see ``nmeaTrack``
    /// for `rmcSkippedEvery` and `ggaSkippedEvery`) and the daemon with `daemonArguments`, and
    /// waits until the daemon has a live fix.
    convenience init(
        name: String, epochs: Int, rate: Int, rmcSkippedEvery: Int? = nil, ggaSkippedEvery: Int? = nil,
        daemonArguments: [String] = []
    ) throws {
        try self.init(
            name: name,
            track: nmeaTrack(
                epochs: epochs, rate: rate, rmcSkippedEvery: rmcSkippedEvery, ggaSkippedEvery: ggaSkippedEvery),
            rate: rate, daemonArguments: daemonArguments)
    }

    /// Starts gpsfake with `track`, NMEA text of three sentences an epoch at `rate` epochs a
    /// second, and the daemon with `daemonArguments`, and waits until the daemon has a live fix.
    init(name: String, track text: String, rate: Int, daemonArguments: [String] = []) throws {
        locationd = try releaseLocationd()
        work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let track = work.appendingPathComponent("track.nmea")
        try text.write(to: track, atomically: true, encoding: .ascii)
        port = try freeLoopbackPort()
        let cycle = String(format: "%.4f", 1 / Double(rate * 3))
        // TMPDIR: gpsfake's gpsd puts its control socket there, named after gpsfake's pid;
        // in the shared /tmp a stale one of a recycled pid makes gpsfake skip adding the device.
        gpsfake = try startProcess(
            "/usr/bin/gpsfake", ["-q", "-P", String(port), "-c", cycle, track.path], environment: ["TMPDIR": work.path])
        data = work.appendingPathComponent("data").path
        daemon = try startProcess(
            locationd.path,
            ["run", "--source", "gpsd", "--gpsd", "127.0.0.1:\(port)", "--data-dir", data]
                + (daemonArguments.contains("--http") ? [] : ["--http", "127.0.0.1:0"]) + daemonArguments)
        let (locationd, data) = (locationd, data)
        do {
            try waitFor("a live fix from the daemon", seconds: 60) {
                (try? runProcess(locationd.path, ["last", "--data-dir", data]).status) == 0
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the daemon, gpsfake's gpsd and gpsfake, and removes the working directory.
    ///
    /// gpsd goes first: gpsfake ignores SIGTERM while a client is connected, and a
    /// gpsfake killed before its gpsd leaves that gpsd running.
    func stop() {
        stopProcess(daemon)
        if let gpsd = childProcess(of: gpsfake.processIdentifier, named: "gpsd") { kill(gpsd, SIGKILL) }
        stopProcess(gpsfake)
        try? FileManager.default.removeItem(at: work)
    }
}
