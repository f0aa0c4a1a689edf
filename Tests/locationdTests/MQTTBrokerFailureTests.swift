import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// Brokers that accept the daemon and then fail it: one that hangs up right after its
/// CONNACK is one outage with a growing backoff; one that acknowledges nothing shows in
/// the log and in `?STATUS;`. And topics that could never be sent are refused at start.
@Suite(.timeLimit(.minutes(5)))
struct MQTTBrokerFailureTests {
    /// A daemon on the simulator publishing to `broker` (an `mqtt://` URL), with `settings`.
    private static func daemon(
        _ directory: borrowing TemporaryDirectory, broker: String, settings: String = ""
    ) async throws -> DaemonProcess {
        let config = directory.path + "/locationd.conf"
        try "mqtt-topic = owntracks/test/failures\n\(settings)".write(toFile: config, atomically: true, encoding: .utf8)
        return try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: ["--source", "simulated", "--mqtt", broker, "--config", config])
    }

    private static func occurrences(of text: String, in log: String) -> Int {
        log.components(separatedBy: text).count - 1
    }

    @Test func aBrokerThatHangsUpAfterItsCONNACKIsOneOutageWithAGrowingBackoff() async throws {
        let directory = try TemporaryDirectory()
        let broker = try FlappingBroker()
        let daemon = try await Self.daemon(directory, broker: "mqtt://127.0.0.1:\(broker.port)")
        let first = try await broker.accepted.next(within: .seconds(30), "the first connection")
        var fifth = first
        for number in 2...5 { fifth = try await broker.accepted.next(within: .seconds(40), "connection \(number)") }
        // 1 + 2 + 4 + 8 s between the five, not a second each.
        #expect(fifth.timeIntervalSince(first) >= 14, "\(fifth.timeIntervalSince(first)) s")
        let log = daemon.stderr
        #expect(Self.occurrences(of: "retrying with backoff", in: log) == 1, "\(log)")
        #expect(Self.occurrences(of: "connected again", in: log) == 0, "\(log)")
        #expect(try await daemon.stop().status == 0)
    }

    /// `?STATUS;`'s `mqtt` object.
    private static func mqttStatus(_ daemon: DaemonProcess) -> [String: Any]? {
        guard let line = (try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil,
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return nil }
        return object["mqtt"] as? [String: Any]
    }

    @Test func aBrokerThatAcknowledgesNothingShowsInTheLogAndTheStatus() async throws {
        let directory = try TemporaryDirectory()
        let broker = try SilentBroker(answersPings: true)
        let daemon = try await Self.daemon(
            directory, broker: "mqtt://127.0.0.1:\(broker.port)", settings: "mqtt-keepalive = 5\n")
        try await waitUntil(seconds: 40) { daemon.stderr.contains("no PUBACK for") }
        let status = try #require(Self.mqttStatus(daemon))
        #expect(status["stalled"] as? Bool == true, "\(status)")
        #expect(status["connected"] as? Bool == true, "\(status)")
        #expect((status["queued"] as? Int ?? 0) > 0, "\(status)")
        #expect(broker.publishes > 0)
        #expect(Self.occurrences(of: "no PUBACK for", in: daemon.stderr) == 1, "\(daemon.stderr)")
        #expect(try await daemon.stop().status == 0)
    }

    /// A broker that hangs up whenever it gets one message (MQTT 3.1.1's only way to refuse
    /// it): after three connections lost with it unacknowledged, it is dropped, counted and
    /// logged, and the messages after it flow again.
    @Test func aMessageTheBrokerHangsUpOnIsDroppedAfterThreeTries() async throws {
        let directory = try TemporaryDirectory()
        let broker = try RefusingBroker(refusedSuffix: "/waypoints")
        let regions = try RegionCommandTests.regionFile(
            #"{"type":"Feature","id":"start","properties":{"name":"Start","radius":5000},"geometry":{"type":"Point","coordinates":[11.5167,48.1173]}}"#
        )
        let daemon = try await Self.daemon(
            directory, broker: "mqtt://127.0.0.1:\(broker.port)", settings: "regions = \(regions)\n")
        do {
            try await waitUntil(seconds: 60) { daemon.stderr.contains("ended the connection 3 times in a row") }
            let acknowledged = broker.acknowledged
            try await waitUntil(seconds: 60) { broker.acknowledged >= acknowledged + 3 }
        } catch {
            Issue.record(
                """
                acknowledged \(broker.acknowledged), refused \(broker.refusals); the daemon's log: \
                \(daemon.stderr.suffix(3000))
                its threads: \(daemon.threadStacks().suffix(12000))
                """)
            throw error
        }
        let status = try #require(Self.mqttStatus(daemon))
        #expect((status["dropped"] as? Int ?? 0) == 1, "\(status)")
        // Dropped means never sent again (libmosquitto's own copy included).
        #expect(broker.refusals == 3)
        #expect(daemon.stderr.contains("failures/waypoints…"), "\(daemon.stderr)")
        #expect(Self.occurrences(of: "ended the connection", in: daemon.stderr) == 1, "\(daemon.stderr)")
        #expect(try await daemon.stop().status == 0)
    }

    /// A topic that fits MQTT's 65,535 bytes but whose derived topics (`/waypoints`,
    /// `/location`, Home Assistant's discovery topics) do not is refused at start, naming
    /// the file's line that set it. A client id of 65,495 bytes fits the tracker's
    /// discovery topic (65,531 bytes) but not the moving sensor's and the distance's.
    @Test(arguments: [
        ["mqtt-topic = " + String(repeating: "t", count: 65_530)],
        ["mqtt-locationd-topic = " + String(repeating: "l", count: 65_530)],
        ["mqtt-discovery = on", "mqtt-client-id = " + String(repeating: "c", count: 65_520)],
        ["mqtt-discovery = on", "mqtt-client-id = " + String(repeating: "c", count: 65_495)],
    ])
    func aTopicThatCouldNeverBeSentIsRefusedAtStart(settings: [String]) async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/locationd.conf"
        try (settings.joined(separator: "\n") + "\n").write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await runLocationdBounded([
            "run", "--data-dir", directory.path + "/data", "--source", "simulated", "--http", "off",
            "--mqtt", "mqtt://127.0.0.1:\(try GPSFake.freeLoopbackPort())", "--config", config,
        ])
        #expect(run.status == 64, "\(run.stderr.prefix(300))")
        #expect(run.stderr.contains("\(config):\(settings.count): "), "\(run.stderr.prefix(300))")
        #expect(run.stderr.contains(" bytes long; MQTT allows at most 65535"), "\(run.stderr.prefix(300))")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
}
