import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationMQTT
@testable import LocationState

/// The publisher's direct sends, in process: while the broker is connected and has
/// acknowledged every stored message, a message goes to it without an outbox write, and
/// is stored only when its PUBACK does not come within `storeDelay` or the publisher
/// stops first.
@Suite(.timeLimit(.minutes(10))) struct MQTTDirectSendTests {
    /// A publisher to the broker at `port`, started and connected.
    private static func connected(port: Int, directory: String) async throws -> MQTTPublisher {
        var configuration = MQTTConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.topic = "owntracks/test/direct"
        let publisher = try MQTTPublisher(
            configuration: configuration, directory: URL(fileURLWithPath: directory),
            logger: Logger(label: "test.mqtt"))
        try publisher.start()
        try await waitUntil(seconds: 10) { publisher.snapshot.connected }
        return publisher
    }

    private static func send(_ publisher: MQTTPublisher, _ text: String) {
        publisher.queue.sync {
            publisher.enqueue(topic: "owntracks/test/direct", payload: Array(text.utf8), retain: false)
        }
    }

    /// What the outbox file holds, read on the publisher's queue.
    private static func stored(_ publisher: MQTTPublisher) throws -> [String] {
        try publisher.queue.sync {
            try publisher.outbox.messages(after: nil, limit: 100, fromFile: true).map {
                String(decoding: $0.payload, as: UTF8.self)
            }
        }
    }

    @Test func aMessageWithoutItsPUBACKIsStoredWithinTheStoreDelay() async throws {
        let directory = try TemporaryDirectory()
        let broker = try SilentBroker()
        defer { broker.stop() }
        let publisher = try await Self.connected(port: broker.port, directory: directory.path)
        defer { publisher.stop() }
        Self.send(publisher, "one")
        // Sent, not stored, and counted as waiting.
        #expect(try Self.stored(publisher).isEmpty)
        #expect(publisher.snapshot.queued == 1)
        try await waitUntil(seconds: 10) { broker.publishes == 1 }
        // No PUBACK comes: it is stored after storeDelay, and a message after it follows it.
        try await waitUntil(seconds: 30) { (try? Self.stored(publisher)) == ["one"] }
        Self.send(publisher, "two")
        #expect(try Self.stored(publisher) == ["one", "two"])
        #expect(publisher.snapshot.queued == 2)
        // Stored, "two" went through the outbox: the broker got both, each once.
        try await waitUntil(seconds: 10) { broker.publishes == 2 }
    }

    @Test func aMessageInFlightWhenThePublisherStopsIsKeptForTheNextStart() async throws {
        let directory = try TemporaryDirectory()
        let broker = try SilentBroker()
        defer { broker.stop() }
        let publisher = try await Self.connected(port: broker.port, directory: directory.path)
        Self.send(publisher, "in flight")
        #expect(try Self.stored(publisher).isEmpty)
        publisher.stop()
        // In the file (the publisher holds it exclusively, so read through its outbox).
        #expect(try Self.stored(publisher) == ["in flight"])
    }

    /// Against a real broker, which acknowledges each message within a millisecond: the
    /// outbox's log does not grow by a page a message (as it did when every message was
    /// stored before it was sent).
    @Test func aBrokerThatAcknowledgesCostsTheOutboxNoWrite() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: "owntracks/test/direct")
        let publisher = try await Self.connected(port: broker.port, directory: directory.path)
        defer { publisher.stop() }
        let wal = directory.path + "/" + MQTTOutbox.fileName + "-wal"
        let size = { @Sendable in (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0 }
        let before = size()
        for index in 0..<20 {
            Self.send(publisher, "fix \(index)")
            _ = try await subscriber.messages.next(within: .seconds(10), "message \(index)")
        }
        try await waitUntil(seconds: 10) { publisher.snapshot.queued == 0 }
        #expect(try Self.stored(publisher).isEmpty)
        #expect(size() == before, "the outbox's log grew from \(before) to \(size()) bytes")
    }
}
