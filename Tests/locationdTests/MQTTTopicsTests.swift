import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationMQTT
@testable import LocationRegions
@testable import LocationState

/// Which message goes to which topic, through a real Mosquitto broker: OwnTracks messages
/// under the OwnTracks base only when they are on, locationd's own under its base always,
/// and never a location without a time.
@Suite(.timeLimit(.minutes(5))) struct MQTTTopicsTests {
    /// A publisher to `broker` with `settings` applied, started.
    private static func publisher(
        _ broker: Mosquitto, directory: String, _ settings: [(String, String)]
    ) throws -> MQTTPublisher {
        var configuration = MQTTConfiguration()
        for (key, value) in [("mqtt", "mqtt://127.0.0.1:\(broker.port)")] + settings {
            _ = try configuration.apply(key: key, value: value, origin: "test")
        }
        let publisher = try MQTTPublisher(
            configuration: configuration, directory: URL(fileURLWithPath: directory), logger: Logger(label: "test.mqtt")
        )
        try publisher.start()
        return publisher
    }

    private static let time = Date(timeIntervalSince1970: 1_795_000_000)

    /// A gpsd session's first report can come without a time: neither topic gets it, and
    /// the fix after it, with a time, is the first location on both.
    @Test func aFixWithoutATimeIsNeverPublished() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let ownTracks = try await MosquittoSubscriber(port: broker.port, topic: "owntracks/test/untimed")
        let locationd = try await MosquittoSubscriber(port: broker.port, topic: "locationd/test/untimed/location")
        let publisher = try Self.publisher(
            broker, directory: directory.path,
            [("mqtt-topic", "owntracks/test/untimed"), ("mqtt-locationd-topic", "locationd/test/untimed")])
        defer { publisher.stop() }
        publisher.queue.sync {
            publisher.publish(fix: Location(mode: .threeD, lat: 1, lon: 2, source: .gpsd), at: Self.time)
            publisher.publish(
                fix: Location(time: Self.time, mode: .threeD, lat: 3, lon: 4, source: .gpsd), at: Self.time)
        }
        let first = try await ownTracks.messages.next(within: .seconds(20), "the OwnTracks location")
        #expect(first.payload.contains(#""lat":3.0000000"#) && first.payload.contains(#""tst":1795000000"#))
        let line = try await locationd.messages.next(within: .seconds(20), "the TPV line")
        #expect(line.payload.hasPrefix(#"{"class":"TPV""#) && line.payload.contains(#""lat":3.000000000"#))
    }

    /// With Home Assistant discovery and no `mqtt-owntracks`, nothing goes under the
    /// OwnTracks base (Home Assistant's OwnTracks integration would make a second tracker
    /// of it); the location and region events go to locationd's base.
    @Test func withDiscoveryNothingGoesUnderTheOwnTracksBase() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let everything = try await MosquittoSubscriber(port: broker.port, topic: "#")
        let publisher = try Self.publisher(
            broker, directory: directory.path,
            [
                ("mqtt-topic", "owntracks/test/ha"), ("mqtt-locationd-topic", "locationd/test/ha"),
                ("mqtt-discovery", "on"),
            ])
        defer { publisher.stop() }
        let regions = try RegionSet([])
        publisher.queue.sync {
            publisher.publish(
                fix: Location(time: Self.time, mode: .threeD, lat: 3, lon: 4, source: .gpsd), at: Self.time)
            publisher.publish(
                transition: RegionEvent(kind: .enter, region: "home", name: "Home", time: Self.time, lat: 3, lon: 4),
                circular: true, at: Self.time)
            publisher.publish(waypoints: regions, at: Self.time)
            publisher.publishStop(at: Self.time)
        }
        var topics: [String] = []
        while !topics.contains("locationd/test/ha/status") {
            topics.append(try await everything.messages.next(within: .seconds(20), "the stop").topic)
        }
        #expect(topics == ["locationd/test/ha/location", "locationd/test/ha/region", "locationd/test/ha/status"])
    }
}
