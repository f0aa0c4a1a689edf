import Foundation
import LocationState

/// gpsfake feeds a real gpsd a 10 Hz track whose every 50th epoch lacks its RMC, so that gpsd
/// reports the other epochs twice (after GGA and after RMC), and whose every 50th epoch,
/// halfway between those, lacks its GGA; `locationd run --source gpsd
/// --mqtt` (one message per epoch) and `gpspipe -w | grep --line-buffered TPV | mosquitto_pub
/// -l` (one per report) publish to the same broker, on two topics. A raw gpsd client stamps
/// each TPV as it leaves gpsd, one `mosquitto_sub` subscribed to both topics stamps each
/// message as it arrives (its `%U`, the wall clock); an epoch is matched across the three by
/// its position (the track moves every epoch), and its latency runs from gpsd's last report
/// of the epoch to the last message of that position. Messages of the window's epochs are
/// awaited for a second after it.
///
/// Besides all epochs, locationd's latency is shown apart for the epochs gpsd reported
/// twice and for those it reported once, after RMC (no GGA) or after GGA (no RMC): an
/// epoch without its RMC has, at its one report, the shape of every other epoch's first
/// report, so the earliest a client can tell it is complete is gpsd's next report
/// (docs/gpsd-epochs.md); for those, the latency from that report is shown as well.
func mqttLatency(broker: BenchBroker) async throws {
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
        name: "mqtt", epochs: Int(window + 60) * 10, rate: 10, rmcSkippedEvery: 50, ggaSkippedEvery: 50,
        daemonArguments: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--config", config.path])
    defer { rig.stop() }
    let reported = ReportLog()
    let watcher = Thread { [port = rig.port] in
        watchGPSD(port: port) { line in
            let now = wallClock()
            if let key = positionKey(Substring(line)) {
                reported.record(String(key), at: now, withCourse: line.contains("\"track\":"))
            }
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
    try await Task.sleep(for: .seconds(1))

    let epochs = reported.epochs.filter { $0.last >= from && $0.last < until }
    let received = arrived.all
    func milliseconds(_ topic: String, _ epochs: [ReportedEpoch], since: (ReportedEpoch) -> Double?) -> [Double] {
        epochs.compactMap { epoch in
            guard let arrival = received[topic + " " + epoch.key], let start = since(epoch) else { return nil }
            return (arrival - start) * 1000
        }.sorted()
    }
    let (our, their) = (milliseconds(ours, epochs) { $0.last }, milliseconds(theirs, epochs) { $0.last })
    guard !our.isEmpty, !their.isEmpty else {
        throw BenchmarkError(
            "mqtt: nothing matched (\(epochs.count) epochs from gpsd, \(our.count) from locationd, \(their.count) from the pipeline)"
        )
    }
    let twice = epochs.filter { $0.reports > 1 }
    let afterRMC = epochs.filter { $0.reports == 1 && $0.withCourse }
    let afterGGA = epochs.filter { $0.reports == 1 && !$0.withCourse }
    print(
        "gpsd's last TPV of an epoch -> MQTT subscriber at 10 Hz, \(Int(window)) s, one broker (Mosquitto), one subscriber; gpsd reported \(twice.count) of \(epochs.count) epochs twice:"
    )
    let repeated = arrived.counts.filter { $0.key.hasPrefix(ours + " ") && $0.value > 1 }.count
    print(
        summary("locationd run --mqtt (QoS 1, outbox)", our, of: epochs.count)
            + ", \(repeated) epochs sent more than once")
    print(summary("gpspipe -w | grep TPV | mosquitto_pub -l (QoS 0)", their, of: epochs.count))
    print(summary("  locationd, epochs gpsd reported twice", milliseconds(ours, twice) { $0.last }, of: twice.count))
    print(
        summary(
            "  locationd, epochs gpsd reported once, after RMC (no GGA)", milliseconds(ours, afterRMC) { $0.last },
            of: afterRMC.count))
    print(
        summary(
            "  locationd, epochs gpsd reported once, after GGA (no RMC)", milliseconds(ours, afterGGA) { $0.last },
            of: afterGGA.count))
    print(
        summary(
            "  the same, from gpsd's next report (the first a client can tell they are complete)",
            milliseconds(ours, afterGGA) { $0.next }, of: afterGGA.count))
    let missed = epochs.filter { received[ours + " " + $0.key] == nil }
    if !missed.isEmpty {
        print("  locationd did not send \(missed.count): reported \(missed.map { "\($0.reports)x" }) by gpsd")
    }
    print(
        String(
            format:
                "mqtt latency: ratio %.2f vs gpspipe | grep | mosquitto_pub -l (median %.3f ms vs %.3f ms, p99 %.3f vs %.3f ms; target: ours < 2 ms)",
            median(their) / median(our), median(our), median(their), p99(our), p99(their)))
}

/// `name: N of M fixes, median, p99, max` of sorted latencies in milliseconds.
private func summary(_ name: String, _ values: [Double], of total: Int) -> String {
    guard let last = values.last else { return "\(name): 0 of \(total) fixes" }
    return String(
        format: "%@: %d of %d fixes, median %.3f ms, p99 %.3f ms, max %.3f ms", name, values.count, total,
        median(values), p99(values), last)
}

private func median(_ sorted: [Double]) -> Double { sorted[sorted.count / 2] }
private func p99(_ sorted: [Double]) -> Double { sorted[min(sorted.count - 1, sorted.count * 99 / 100)] }

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
func wallClock() -> Double {
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

/// One epoch as gpsd reported it: its position, how many TPVs, when the last one left
/// gpsd and whether it had a course, and when gpsd's next report (of the next epoch) left.
private struct ReportedEpoch {
    let key: String
    var reports: Int
    var last: Double
    var withCourse: Bool
    var next: Double?
}

/// gpsd's TPVs in the order they came, grouped into epochs by position; written from one
/// thread, read from another.
private final class ReportLog: Sendable {
    private let log = Locked<[ReportedEpoch]>([])

    func record(_ key: String, at stamp: Double, withCourse: Bool) {
        log.withLock { epochs in
            if let latest = epochs.last, latest.key == key {
                epochs[epochs.count - 1].reports += 1
                epochs[epochs.count - 1].last = stamp
                epochs[epochs.count - 1].withCourse = withCourse
            } else {
                if !epochs.isEmpty { epochs[epochs.count - 1].next = stamp }
                epochs.append(ReportedEpoch(key: key, reports: 1, last: stamp, withCourse: withCourse))
            }
        }
    }
    var epochs: [ReportedEpoch] { log.withLock { $0 } }
}
