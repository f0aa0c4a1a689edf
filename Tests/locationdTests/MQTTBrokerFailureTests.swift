import Foundation
import Testing

/// Brokers that accept the daemon and then fail it: one that hangs up right after its
/// CONNACK is one outage with a growing backoff.
@Suite(.timeLimit(.minutes(2)))
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
}
