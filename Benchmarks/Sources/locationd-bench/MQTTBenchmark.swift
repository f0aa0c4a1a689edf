import Foundation
import LocationState
import Synchronization

/// MQTT: latency from gpsd's report to a subscriber at 10 Hz, and the drain of a
/// 36,000-message backlog, each side by side with the shell pipeline users write today
/// (`gpspipe -w | grep TPV | mosquitto_pub -l`, and `mosquitto_pub -l` fed the backlog).
///
/// A real Mosquitto on a loopback port, `mosquitto_sub` (line-buffered) as the
/// subscriber. Latency: a raw watcher of gpsd stamps each TPV line as it arrives,
/// the subscriber stamps the MQTT message of the same fix (matched by its latitude
/// to 1e-7°); the release `locationd run --source gpsd --mqtt` and the pipeline read
/// the same gpsd at the same time. Backlog: 36,000 messages put in the outbox file,
/// then the daemon started: the time until the subscriber has them all; the peer is
/// `mosquitto_pub -l -q 1` given the same number of lines from a file.
func mqttBenchmark() async throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-mqtt-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let brokerPort = try freeLoopbackPort()
    let conf = work.appendingPathComponent("mosquitto.conf")
    try """
    listener \(brokerPort) 127.0.0.1
    allow_anonymous true
    persistence false
    max_queued_messages 100000
    user \(ProcessInfo.processInfo.userName)

    """.write(to: conf, atomically: true, encoding: .utf8)
    let broker = try startProcess("/usr/sbin/mosquitto", ["-c", conf.path])
    defer { kill(broker.processIdentifier, SIGKILL) }
    let received = MQTTStamps()
    let subscriber = try MQTTLineReader(port: brokerPort, topic: "bench/#", into: received)
    defer { subscriber.stop() }

    // Latency at 10 Hz.
    let config = work.appendingPathComponent("locationd.conf")
    try "mqtt-topic = bench/locationd\n".write(to: config, atomically: true, encoding: .utf8)
    let rig = try GPSDRig(
        name: "mqtt", epochs: 900, rate: 10,
        daemonArguments: ["--mqtt", "mqtt://127.0.0.1:\(brokerPort)", "--config", config.path])
    defer { rig.stop() }
    let reported = MQTTStamps()
    let gpsdPort = rig.port
    let watcher = Thread { watchTPV(port: gpsdPort, into: reported) }
    watcher.start()
    let pipeline = try startProcess(
        "/bin/sh",
        [
            "-c",
            "stdbuf -oL gpspipe -w 127.0.0.1:\(rig.port) | grep --line-buffered '\"class\":\"TPV\"' | mosquitto_pub -l -q 1 -h 127.0.0.1 -p \(brokerPort) -t bench/peer",
        ])
    defer { stopProcess(pipeline) }
    try await Task.sleep(for: .seconds(30))
    let ours = latencies(reported.all, received.all(topic: "bench/locationd"))
    let peer = latencies(reported.all, received.all(topic: "bench/peer"))
    guard ours.count > 50, peer.count > 50 else {
        throw BenchmarkError("too few fixes matched: \(ours.count) ours, \(peer.count) pipeline")
    }
    let (ourMedian, ourP90) = percentiles(ours)
    let (peerMedian, peerP90) = percentiles(peer)
    print(
        String(
            format: "locationd --mqtt:                 %d fixes, median %.2f ms, p90 %.2f ms", ours.count, ourMedian,
            ourP90))
    print(
        String(
            format: "gpspipe | grep | mosquitto_pub:   %d fixes, median %.2f ms, p90 %.2f ms", peer.count, peerMedian,
            peerP90))
    rig.stop()

    // Backlog drain.
    let count = 36_000
    let data = work.appendingPathComponent("backlog-data")
    do {
        let outbox = try MQTTOutbox(directory: data)
        let payload = Array(#"{"_type":"location","lat":48.1,"lon":11.5,"tst":1795400000,"tid":"pi","t":"t"}"#.utf8)
        for _ in 0..<count { try outbox.append(topic: "bench/backlog", payload: payload, retain: false) }
    }
    let drainStart = ContinuousClock.now
    let daemon = try startProcess(
        rig.locationd.path,
        ["run", "--source", "simulated", "--data-dir", data.path, "--mqtt", "mqtt://127.0.0.1:\(brokerPort)"])
    defer { stopProcess(daemon) }
    try waitFor("the backlog at the subscriber", seconds: 300) { received.count(topic: "bench/backlog") >= count }
    let ourDrain = (ContinuousClock.now - drainStart) / .seconds(1)
    let lines = work.appendingPathComponent("backlog.txt")
    try String(
        repeating: #"{"_type":"location","lat":48.1,"lon":11.5,"tst":1795400000,"tid":"pi","t":"t"}"# + "\n",
        count: count
    ).write(to: lines, atomically: true, encoding: .utf8)
    let peerStart = ContinuousClock.now
    _ = try startProcess(
        "/bin/sh",
        ["-c", "mosquitto_pub -l -q 1 -h 127.0.0.1 -p \(brokerPort) -t bench/peer-backlog < \(lines.path)"])
    try waitFor("the pipeline's backlog at the subscriber", seconds: 300) {
        received.count(topic: "bench/peer-backlog") >= count
    }
    let peerDrain = (ContinuousClock.now - peerStart) / .seconds(1)
    print(String(format: "backlog of %d: locationd %.2f s, mosquitto_pub -l %.2f s", count, ourDrain, peerDrain))
    print(
        String(
            format:
                "mqtt: ratio %.2f vs gpspipe | mosquitto_pub (median latency %.2f vs %.2f ms at 10 Hz; backlog of 36,000 drained in %.2f s vs %.2f s, ratio %.2f)",
            ourMedian / peerMedian, ourMedian, peerMedian, ourDrain, peerDrain, ourDrain / peerDrain))
}

/// Arrival times by key: a latitude in 1e-7 degrees, or a running count per topic.
private final class MQTTStamps: Sendable {
    private let stamps = Mutex<[String: [Int: ContinuousClock.Instant]]>([:])
    private let counts = Mutex<[String: Int]>([:])

    func record(_ key: Int, topic: String = "", at instant: ContinuousClock.Instant) {
        stamps.withLock { if $0[topic]?[key] == nil { $0[topic, default: [:]][key] = instant } }
        counts.withLock { $0[topic, default: 0] += 1 }
    }
    var all: [Int: ContinuousClock.Instant] { all(topic: "") }
    func all(topic: String) -> [Int: ContinuousClock.Instant] { stamps.withLock { $0[topic] ?? [:] } }
    func count(topic: String) -> Int { counts.withLock { $0[topic] ?? 0 } }
}

/// Milliseconds from each report to the message of the same fix.
private func latencies(_ reported: [Int: ContinuousClock.Instant], _ received: [Int: ContinuousClock.Instant])
    -> [Double]
{
    received.compactMap { key, arrival in
        reported[key].map { (arrival - $0) / .milliseconds(1) }
    }
}

/// The latitude of a JSON line (`"lat":48.123...`) in 1e-7 degrees.
private func latitudeKey(_ line: Substring) -> Int? {
    guard let range = line.range(of: "\"lat\":") else { return nil }
    let rest = line[range.upperBound...].prefix { $0.isNumber || $0 == "." || $0 == "-" }
    return Double(rest).map { Int(($0 * 1e7).rounded()) }
}

/// `mosquitto_sub -v` (line-buffered) whose lines are stamped on a thread of their own.
private final class MQTTLineReader: Sendable {
    private let process: Process

    init(port: Int, topic: String, into stamps: MQTTStamps) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-v", "-q", "1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let fd = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            readLines(fd) { line, now in
                guard let space = line.firstIndex(of: " ") else { return }
                let topic = String(line[..<space])
                stamps.record(latitudeKey(line[space...]) ?? 0, topic: topic, at: now)
            }
        }
    }

    func stop() { kill(process.processIdentifier, SIGKILL) }
}

/// Watches gpsd at `port` over a plain socket and stamps each TPV line by its latitude.
private func watchTPV(port: Int, into stamps: MQTTStamps) {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else { return }
    let watch = "?WATCH={\"enable\":true,\"json\":true}\n"
    _ = watch.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    readLines(fd) { line, now in
        guard line.hasPrefix("{\"class\":\"TPV\""), let key = latitudeKey(line[...]) else { return }
        stamps.record(key, at: now)
    }
}

/// Reads lines from `fd` until its end, calling `body` with each and the time its bytes arrived.
private func readLines(_ fd: Int32, _ body: (String, ContinuousClock.Instant) -> Void) {
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(fd, &buffer, buffer.count)
        let now = ContinuousClock.now
        guard count > 0 else { return }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            body(String(decoding: pending[..<newline], as: UTF8.self), now)
            pending.removeSubrange(...newline)
        }
    }
}
