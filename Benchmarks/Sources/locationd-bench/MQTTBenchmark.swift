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
final class BenchSubscriber: Sendable {
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
