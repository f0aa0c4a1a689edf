import Foundation
import LocationFormats
import LocationMQTT
import LocationState

/// MQTT: latency from gpsd's report to a subscriber, against the shell pipeline users
/// write today, and the time to send an hour's backlog once the broker is back.
func mqttBenchmark() async throws {
    let broker = try BenchBroker()
    defer { broker.stop() }
    try await mqttLatency(broker: broker)
    try await mqttBacklog(broker: broker)
}

// MARK: latency

/// gpsfake feeds a real gpsd a 10 Hz track whose every 50th epoch lacks its RMC, so that gpsd
/// reports the other epochs twice (after GGA and after RMC); `locationd run --source gpsd
/// --mqtt` (one message per epoch) and `gpspipe -w | grep --line-buffered TPV | mosquitto_pub
/// -l` (one per report) publish to the same broker, on two topics. A raw gpsd client stamps
/// each TPV as it leaves gpsd, one `mosquitto_sub` subscribed to both topics stamps each
/// message as it arrives (its `%U`, the wall clock); an epoch is matched across the three by
/// its position (the track moves every epoch), and its latency runs from gpsd's last report
/// of the epoch to the last message of that position.
private func mqttLatency(broker: BenchBroker) async throws {
    let window = Double(ProcessInfo.processInfo.environment["LOCATIOND_BENCH_SECONDS"] ?? "") ?? 60
    let (ours, theirs) = ("bench/locationd", "bench/pipeline")
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-mqtt-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let config = work.appendingPathComponent("locationd.conf")
    try "mqtt-topic = \(ours)\nmqtt-client-id = locationd-bench\n".write(to: config, atomically: true, encoding: .utf8)

    let arrived = PositionStamps()
    let subscriber = try BenchSubscriber(port: broker.port, topics: [ours, theirs]) { stamp, retained, topic, payload in
        guard !retained, let key = positionKey(payload) else { return }
        arrived.record(topic + " " + String(key), at: stamp)
    }
    defer { subscriber.stop() }
    let rig = try GPSDRig(
        name: "mqtt", epochs: Int(window + 60) * 10, rate: 10, rmcSkippedEvery: 50,
        daemonArguments: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--config", config.path])
    defer { rig.stop() }
    let reported = PositionStamps()
    let watcher = Thread { [port = rig.port] in
        watchGPSD(port: port) { line in
            let now = wallClock()
            if let key = positionKey(Substring(line)) { reported.record(String(key), at: now) }
        }
    }
    watcher.start()
    let filter = #"grep --line-buffered '"class":"TPV"'"#
    let pipeline = try startProcess(
        "/bin/sh",
        [
            "-c",
            "gpspipe -w 127.0.0.1:\(rig.port) | \(filter) | mosquitto_pub -h 127.0.0.1 -p \(broker.port) -t \(theirs) -l",
        ])
    defer {
        for name in ["gpspipe", "grep", "mosquitto_pub"] {
            if let child = childProcess(of: pipeline.processIdentifier, named: name) { kill(child, SIGKILL) }
        }
        stopProcess(pipeline)
    }
    // A warm-up, so that both publishers are connected and past their first messages.
    try await Task.sleep(for: .seconds(3))
    let from = wallClock()
    try await Task.sleep(for: .seconds(window))
    let until = wallClock()

    let sent = reported.all
    let received = arrived.all
    let twice = reported.counts.filter { key, count in count > 1 && (sent[key] ?? 0) >= from && (sent[key] ?? 0) < until
    }
    func milliseconds(_ topic: String) -> [Double] {
        sent.compactMap { key, at in
            guard at >= from, at < until, let arrival = received[topic + " " + key] else { return nil }
            return (arrival - at) * 1000
        }.sorted()
    }
    let (our, their) = (milliseconds(ours), milliseconds(theirs))
    let fixes = sent.values.filter { $0 >= from && $0 < until }.count
    guard !our.isEmpty, !their.isEmpty else {
        throw BenchmarkError(
            "mqtt: nothing matched (\(fixes) TPVs from gpsd, \(our.count) from locationd, \(their.count) from the pipeline)"
        )
    }
    func line(_ name: String, _ values: [Double]) -> String {
        String(
            format: "%@: %d of %d fixes, median %.3f ms, p99 %.3f ms, max %.3f ms", name, values.count, fixes,
            values[values.count / 2], values[min(values.count - 1, values.count * 99 / 100)], values.last!)
    }
    print(
        "gpsd's last TPV of an epoch -> MQTT subscriber at 10 Hz, \(Int(window)) s, one broker (Mosquitto), one subscriber; gpsd reported \(twice.count) of \(fixes) epochs twice:"
    )
    let repeated = arrived.counts.filter { $0.key.hasPrefix(ours + " ") && $0.value > 1 }.count
    print(line("locationd run --mqtt (QoS 1, outbox)", our) + ", \(repeated) epochs sent more than once")
    print(line("gpspipe -w | grep TPV | mosquitto_pub -l (QoS 0)", their))
    let (ourMedian, theirMedian) = (our[our.count / 2], their[their.count / 2])
    print(
        String(
            format:
                "mqtt latency: ratio %.2f vs gpspipe | grep | mosquitto_pub -l (median %.3f ms vs %.3f ms, p99 %.3f vs %.3f ms; target: ours < 2 ms)",
            theirMedian / ourMedian, ourMedian, theirMedian, our[min(our.count - 1, our.count * 99 / 100)],
            their[min(their.count - 1, their.count * 99 / 100)]))
}

/// A fix's position as the integer number of ten-thousandths of a minute of latitude
/// and of longitude (NMEA's resolution in the generated track), from any JSON with
/// `"lat":` and `"lon":` (gpsd's TPV, OwnTracks' location).
private func positionKey(_ json: Substring) -> Int? {
    func number(_ key: String) -> Double? {
        guard let range = json.range(of: "\"\(key)\":") else { return nil }
        let rest = json[range.upperBound...]
        return Double(rest.prefix { $0 == "-" || $0 == "." || $0.isNumber })
    }
    guard let lat = number("lat"), let lon = number("lon") else { return nil }
    return Int((lat * 600_000).rounded()) * 1_000_000_000 + Int((lon * 600_000).rounded())
}

/// The wall clock, in seconds since 1970 (mosquitto_sub's `%U` is the same clock).
private func wallClock() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// When each message (by key) was last seen, and how many times; written from one thread,
/// read from another.
private final class PositionStamps: Sendable {
    private let stamps = Locked<[String: (last: Double, count: Int)]>([:])

    func record(_ key: String, at stamp: Double) {
        stamps.withLock { $0[key] = (stamp, ($0[key]?.count ?? 0) + 1) }
    }
    var all: [String: Double] { stamps.withLock { $0.mapValues(\.last) } }
    var counts: [String: Int] { stamps.withLock { $0.mapValues(\.count) } }
}

// MARK: backlog

/// An hour at 10 Hz (36,000 OwnTracks locations, 250 bytes each) written into the
/// outbox through the library, `locationd run` started against the stopped broker, then
/// the broker started: the time until one subscriber (QoS 1) has every message, in
/// order. Measured from the daemon's "connected again" line (the broker's return as
/// the daemon sees it; before it, the reconnect backoff's wait) and from the broker's
/// start.
private func mqttBacklog(broker: BenchBroker) async throws {
    let count = 36_000
    let topic = "bench/backlog"
    broker.stop()
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-backlog-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let data = work.appendingPathComponent("data")
    let filled = try await seconds { try fillOutbox(directory: data, topic: topic, count: count) }
    print(String(format: "backlog: %d messages written into the outbox in %.1f s", count, filled))
    let config = work.appendingPathComponent("locationd.conf")
    try "mqtt-topic = bench/live\n".write(to: config, atomically: true, encoding: .utf8)

    let log = LogLines()
    let daemon = Process()
    daemon.executableURL = try releaseLocationd()
    daemon.arguments = [
        "run", "--source", "simulated", "--data-dir", data.path, "--http", "127.0.0.1:0",
        "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--config", config.path,
    ]
    let errors = Pipe()
    daemon.environment = childEnvironment
    daemon.standardError = errors
    daemon.standardOutput = FileHandle.nullDevice
    try daemon.run()
    defer { stopProcess(daemon) }
    Thread.detachNewThread { [reader = errors.fileHandleForReading] in
        var pending = Data()
        while case let chunk = reader.availableData, !chunk.isEmpty {
            let now = wallClock()
            pending += chunk
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                log.append(String(decoding: pending[..<newline], as: UTF8.self), at: now)
                pending.removeSubrange(...newline)
            }
        }
    }
    // The daemon found the broker away; it tries again after its backoff (1 s).
    try waitFor("the daemon's outage line", seconds: 60) { log.first(containing: "retrying with backoff") != nil }
    let brokerStart = wallClock()
    try broker.start()
    let received = Shared((count: 0, next: 0, outOfOrder: 0, last: 0.0))
    let subscriber = try BenchSubscriber(port: broker.port, topics: [topic], qos: 1) { stamp, _, _, payload in
        guard let sequence = sequenceNumber(payload) else { return }
        received.withLock {
            // QoS 1 may repeat a message after a reconnection; a repeat is not out of order.
            if sequence == $0.next {
                $0.next += 1
                $0.count += 1
                $0.last = stamp
            } else if sequence > $0.next {
                $0.outOfOrder += 1
            }
        }
    }
    defer { subscriber.stop() }
    try waitFor("every message at the subscriber", seconds: 300) {
        received.withLock { $0.count == count || $0.outOfOrder > 0 } || !daemon.isRunning
    }
    let result = received.withLock { $0 }
    guard result.outOfOrder == 0, result.count == count else {
        throw BenchmarkError("backlog: \(result.count) in order, then one out of order (or the daemon exited)")
    }
    guard let connected = log.first(containing: "connected again") else {
        throw BenchmarkError("backlog: the daemon never said it connected again")
    }
    let drain = result.last - connected.at
    print("backlog: the daemon said: \(connected.line)")
    print(
        String(
            format:
                "backlog: %d messages, in order, %.2f s after the daemon connected again (%.0f messages/s), %.2f s after the broker started",
            count, drain, Double(count) / drain, result.last - brokerStart))
    print(String(format: "mqtt backlog: %.2f s for an hour at 10 Hz (target: < 5 s)", drain))
}

/// Appends `count` OwnTracks locations (a 10 Hz track, an hour ago) to the outbox in
/// `directory`, as the daemon would have during an outage.
private func fillOutbox(directory: URL, topic: String, count: Int) throws {
    let outbox = try MQTTOutbox(directory: directory)
    let start = Date().addingTimeInterval(-Double(count) / 10)
    for index in 0..<count {
        let time = start.addingTimeInterval(Double(index) / 10)
        let fix = Location(
            time: time, mode: .threeD, lat: 48.1173 + Double(index) * 1e-6, lon: 11.5167 + Double(index) * 1e-6,
            altMSL: 545.4, speed: 3.3, track: 45, eph: 4.2, epv: 6.1, satellitesUsed: 8, hdop: 0.9,
            source: .gpsd)
        var payload = try OwnTracksLocation(fix, trackerID: "pi", createdAt: time).payload.unwrapped()
        // The message's place in the sequence, for the subscriber to check the order.
        payload.removeLast()
        payload += Array(",\"seq\":\(index)}".utf8)
        try outbox.append(topic: topic, payload: payload, retain: true, at: time)
    }
}

private func sequenceNumber(_ payload: Substring) -> Int? {
    guard let range = payload.range(of: "\"seq\":") else { return nil }
    return Int(payload[range.upperBound...].prefix { $0.isNumber })
}

extension Optional {
    fileprivate func unwrapped() throws -> Wrapped {
        guard let self else { throw BenchmarkError("no payload") }
        return self
    }
}

/// A value behind a lock, shared between threads.
private typealias Shared = Locked

/// Lines a process wrote, with when each arrived.
private final class LogLines: Sendable {
    private let lines = Locked<[(line: String, at: Double)]>([])

    func append(_ line: String, at stamp: Double) { lines.withLock { $0.append((line, stamp)) } }
    func first(containing text: String) -> (line: String, at: Double)? {
        lines.withLock { $0.first { $0.line.contains(text) } }
    }
}

// MARK: broker and subscriber

/// A Mosquitto broker on a free loopback port, which can be stopped and started again.
///
/// The broker keeps any number of messages for a subscriber that lags
/// (`max_queued_messages 0`): what is measured is the daemon's sending, not a
/// broker's queue limit.
final class BenchBroker: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced by start/stop, called from one task.
    let port: Int
    private let directory: URL
    private var process: Process?

    init() throws {
        port = try freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-broker-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = [
            "listener \(port) 127.0.0.1", "allow_anonymous true", "persistence false", "max_queued_messages 0",
            "log_dest none", "user \(ProcessInfo.processInfo.userName)",
        ]
        try (config.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the broker; returns once its port accepts connections.
    func start() throws {
        process = try startProcess(
            "/usr/sbin/mosquitto", ["-c", directory.appendingPathComponent("mosquitto.conf").path])
        let port = port
        try waitFor("Mosquitto on port \(port)", seconds: 20) { acceptsConnections(port: port) }
    }

    /// Stops the broker (SIGKILL: Foundation's Process starts it with SIGTERM blocked).
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("mosquitto.db"))
    }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
private func acceptsConnections(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// `mosquitto_sub` printing each message as `%U %r %t %p` (its arrival time on the wall
/// clock, the retain flag, topic, payload); `handle` gets each, on a reader thread.
/// Returns once the broker acknowledged the subscriptions.
private final class BenchSubscriber: Sendable {
    private let process: Process

    init(
        port: Int, topics: [String], qos: Int = 0,
        handle: @escaping @Sendable (_ at: Double, _ retained: Bool, _ topic: String, _ payload: Substring) -> Void
    ) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments =
            ["-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-q", String(qos), "-d"]
            + topics.flatMap { ["-t", $0] } + ["-F", "%U %r %t %p"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let subscribed = Shared(false)
        Thread.detachNewThread { [reader = output.fileHandleForReading] in
            var pending = Data()
            while case let chunk = reader.availableData, !chunk.isEmpty {
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    // -d's debug lines ("Client ID received SUBACK", ...).
                    if line.hasPrefix("Client ") || line.hasPrefix("Subscribed") {
                        if line.contains("SUBACK") { subscribed.withLock { $0 = true } }
                        continue
                    }
                    let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                    guard fields.count == 4, let at = Double(fields[0]) else { continue }
                    handle(at, fields[1] == "1", String(fields[2]), fields[3])
                }
            }
        }
        try waitFor("mosquitto_sub's SUBACK", seconds: 20) { subscribed.withLock { $0 } }
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
