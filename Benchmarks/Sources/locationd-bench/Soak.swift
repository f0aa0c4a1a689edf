import Foundation
import LocationState
import Synchronization

/// The daemon run for a long window at 10 Hz with every listener on and HTTP clients coming
/// and going: its resident memory and open descriptors must be flat once it has settled.
///
/// gpsfake feeds a real gpsd a 10 Hz drive around a circuit with stops (``Circuit``); `locationd run --source gpsd --record` with a
/// region file, MQTT to a real Mosquitto and HTTP reads it. Beside it: four event streams
/// held for the whole window, one reconnected every 10 s, and an API client asking for
/// `/api/v1/last`, `/status`, `/timeline` and `/tiles` (new connection each) four times a second.
/// Memory and descriptors are sampled every 30 s; after the settling time (a sixth of the
/// window, at most 10 minutes) the resident memory may rise by at most 1 MiB above its value
/// then and the descriptors must be as many at the end as then. gpsd's figures over the same
/// window are the peer.
func soak() async throws {
    let window = Double(ProcessInfo.processInfo.environment["LOCATIOND_BENCH_SECONDS"] ?? "") ?? 3600
    let settle = min(600, window / 6)
    let port = try freeLoopbackPort()
    let broker = try BenchMosquitto()
    defer { broker.stop() }
    let regions = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-soak-\(getpid()).geojson")
    try soakRegions.write(to: regions, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: regions) }
    let rig = try GPSDRig(
        name: "soak", track: circuitTrack(epochs: Int(window + 180) * 10, rate: 10), rate: 10,
        daemonArguments: [
            "--record", "--http", "127.0.0.1:\(port)", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
            "--regions", regions.path,
        ])
    defer { rig.stop() }
    guard let gpsd = childProcess(of: rig.gpsfake.processIdentifier, named: "gpsd") else {
        throw BenchmarkError("gpsfake's gpsd not found")
    }
    let held = try (0..<4).map { _ in try EventClient(port: port) }
    for client in held { client.start() }
    let load = SoakClients(port: port)
    load.start()
    defer {
        load.stop()
        for client in held { client.stop() }
    }
    say("window: \(Int(window)) s at 10 Hz, settled after \(Int(settle)) s; samples every 30 s")
    say("seconds  locationd RSS KiB  of it anon KiB  fds  gpsd RSS KiB  requests  streams")
    let daemon = rig.daemon.processIdentifier
    let start = Date()
    var samples: [SoakSample] = []
    while true {
        let elapsed = Date().timeIntervalSince(start)
        guard let ours = ProcessStat(pid: daemon), let peer = ProcessStat(pid: gpsd) else {
            throw BenchmarkError("a process ended during the soak")
        }
        let sample = SoakSample(
            seconds: elapsed, residentBytes: ours.residentBytes, anonymousBytes: anonymousResidentBytes(of: daemon),
            descriptors: openDescriptors(of: daemon), peerResidentBytes: peer.residentBytes)
        samples.append(sample)
        say(
            String(
                format: "%7.0f  %17d  %14d  %3d  %12d  %8d  %7d", elapsed, sample.residentBytes / 1024,
                sample.anonymousBytes / 1024, sample.descriptors,
                sample.peerResidentBytes / 1024, load.requests, load.streams))
        guard elapsed < window else { break }
        try await Task.sleep(for: .seconds(min(30, window - elapsed)))
    }
    guard held.allSatisfy({ !$0.ended }) else { throw BenchmarkError("the daemon ended a held event stream") }
    guard load.failures == 0 else { throw BenchmarkError("\(load.failures) API requests failed") }
    let settled = samples.last { $0.seconds <= settle } ?? samples[0]
    let after = samples.filter { $0.seconds >= settled.seconds }
    let growth = after.map(\.residentBytes).max()! - settled.residentBytes
    let anonymousGrowth = after.map(\.anonymousBytes).max()! - settled.anonymousBytes
    let peerGrowth = after.map(\.peerResidentBytes).max()! - settled.peerResidentBytes
    let descriptorChange = samples.last!.descriptors - settled.descriptors
    let flat = growth <= 1024 * 1024 && descriptorChange <= 0
    print(
        String(
            format:
                "soak: ratio %.2f vs gpsd (resident memory ours/gpsd at the end; growth after %.0f s: ours %d KiB (anonymous %d KiB), gpsd %d KiB; descriptors %+d; %@)",
            Double(samples.last!.residentBytes) / Double(samples.last!.peerResidentBytes), settled.seconds,
            growth / 1024, anonymousGrowth / 1024, peerGrowth / 1024, descriptorChange, flat ? "flat" : "NOT flat"))
    // Thrown, not exit(1): the rig and the broker stop on the way out.
    if !flat { throw BenchmarkError("the daemon's memory or descriptors grew after it settled") }
}

/// Prints `line` at once, also into a file or a pipe (where `print` waits for a full
/// buffer): an hour's samples are read while they come.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// One reading of the daemon and its gpsd.
private struct SoakSample {
    let seconds: Double
    let residentBytes: Int
    /// The part of ``residentBytes`` that is allocated memory (the heap, stacks), not mapped files.
    let anonymousBytes: Int
    let descriptors: Int
    let peerResidentBytes: Int
}

/// The resident anonymous memory of `pid` (`RssAnon`): what a leak grows, unlike the pages
/// of the binary's code, which are faulted in as code runs the first time.
private func anonymousResidentBytes(of pid: pid_t) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

/// The number of open file descriptors of `pid`.
private func openDescriptors(of pid: pid_t) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}

/// The soak's drive: around a circle of ``Circuit/radius`` at 12 m/s, two laps, then parked
/// at the start for six minutes (a stay), over and over. Every tile, region and answer the
/// daemon keeps is met in the first cycle (11 minutes), so that what a longer run adds to the
/// daemon's memory is what it holds on to, not what a drive into new tiles gives it to keep.
private enum Circuit {
    static let center = (latitude: 48.1173, longitude: 11.5167)
    static let radius = 300.0
    static let speed = 12.0
    static let lapSeconds = 2 * Double.pi * radius / speed
    static let drivingSeconds = 2 * lapSeconds
    static let parkedSeconds = 360.0

    /// The point at `angle` radians around the circle, counterclockwise from due east.
    static func point(at angle: Double) -> (latitude: Double, longitude: Double) {
        let metresPerDegree = 6_371_000 * Double.pi / 180
        return (
            center.latitude + radius * sin(angle) / metresPerDegree,
            center.longitude + radius * cos(angle) / (metresPerDegree * cos(center.latitude * Double.pi / 180))
        )
    }
}

/// ``Circuit``'s drive as NMEA, `epochs` epochs at `rate` Hz.
private func circuitTrack(epochs: Int, rate: Int) -> String {
    var text = ""
    let cycle = Circuit.drivingSeconds + Circuit.parkedSeconds
    for epoch in 0..<epochs {
        let seconds = Double(epoch) / Double(rate)
        let driven = seconds.truncatingRemainder(dividingBy: cycle)
        let driving = driven < Circuit.drivingSeconds
        let angle = driving ? 2 * Double.pi * driven / Circuit.lapSeconds : 0
        let point = Circuit.point(at: angle)
        // Counterclockwise: heading east of north is the angle's tangent, (-sin, cos).
        let course = (atan2(-sin(angle), cos(angle)) * 180 / Double.pi + 360).truncatingRemainder(dividingBy: 360)
        text += nmeaEpoch(
            seconds: seconds, latitude: point.latitude, longitude: point.longitude,
            knots: driving ? Circuit.speed / 0.514444 : 0, course: driving ? course : 0)
    }
    return text
}

/// A circle around ``Circuit``'s parking place and one on the far side of the circuit, so
/// that the drive leaves and enters both every cycle.
private var soakRegions: String {
    let start = Circuit.point(at: 0)
    let far = Circuit.point(at: Double.pi)
    return """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":"start","properties":{"name":"Start","radius":100},"geometry":{"type":"Point","coordinates":[\(start.longitude),\(start.latitude)]}},
        {"type":"Feature","id":"far","properties":{"name":"Far side","radius":80},"geometry":{"type":"Point","coordinates":[\(far.longitude),\(far.latitude)]}}
        ]}
        """
}

/// The API client and the event stream that comes and goes, each on a thread of its own.
private final class SoakClients: Sendable {
    private let port: Int
    private let stopping = Atomic<Bool>(false)
    private let requestCount = Atomic<Int>(0)
    private let failureCount = Atomic<Int>(0)
    private let streamCount = Atomic<Int>(0)

    init(port: Int) { self.port = port }

    var requests: Int { requestCount.load(ordering: .relaxed) }
    var failures: Int { failureCount.load(ordering: .relaxed) }
    var streams: Int { streamCount.load(ordering: .relaxed) }

    func start() {
        Thread.detachNewThread { [self] in askRepeatedly() }
        Thread.detachNewThread { [self] in reconnectStreams() }
    }

    func stop() { stopping.store(true, ordering: .relaxed) }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func askRepeatedly() {
        let day = "2026-11-22"
        let paths = ["/api/v1/last", "/api/v1/status", "/api/v1/timeline?day=\(day)", "/api/v1/tiles?zoom=17"]
        var index = 0
        while !isStopping {
            let status = httpStatus(port: port, path: paths[index % paths.count])
            if status == 200 {
                requestCount.add(1, ordering: .relaxed)
            } else {
                failureCount.add(1, ordering: .relaxed)
            }
            index += 1
            usleep(250_000)
        }
    }

    private func reconnectStreams() {
        while !isStopping {
            guard let client = try? EventClient(port: port) else {
                failureCount.add(1, ordering: .relaxed)
                usleep(1_000_000)
                continue
            }
            client.start()
            streamCount.add(1, ordering: .relaxed)
            for _ in 0..<100 where !isStopping { usleep(100_000) }
            client.stop()
        }
    }
}

/// The status code of `GET path` on 127.0.0.1:`port` (a connection of its own, closed after
/// the answer is read whole), or 0 when the request failed.
private func httpStatus(port: Int, path: String) -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    guard connectLoopback(fd, port: port) else { return 0 }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    guard write(fd, request, request.count) == request.count else { return 0 }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { break }
        if answer.count < 64 { answer += buffer[0..<count] }
    }
    // "HTTP/1.1 200 OK"
    let line = String(decoding: answer.prefix(12), as: UTF8.self)
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
