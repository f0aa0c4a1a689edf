import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationMQTT
@testable import LocationState
@testable import LocationTimeline

/// A stay a gap dropped reaches MQTT's timeline topic after the trip that named it, through a
/// real Mosquitto broker: a subscriber learns that the trip's `to` will never close.
@Suite(.timeLimit(.minutes(5)))
struct MQTTTimelineDropTests {
    @Test func theDropFollowsTheTripOnTheTimelineTopic() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        var configuration = MQTTConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = broker.port
        configuration.locationdTopic = "locationd/test/drop"
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: configuration.topics.timeline)
        let publisher = try MQTTPublisher(
            configuration: configuration, directory: URL(fileURLWithPath: directory.path),
            logger: Logger(label: "test.mqtt"))
        try publisher.start()
        defer { publisher.stop() }
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let stay = Stay(
            start: start.addingTimeInterval(600), end: start.addingTimeInterval(1000), latitude: 47.37,
            longitude: 8.54, radius: 4, fixes: 401)
        let trip = Trip(
            start: start, end: stay.start, to: stay.start, distance: 1000, maxSpeed: 20, fixes: 600)
        publisher.queue.sync {
            publisher.publish(timeline: .tripClosed(trip))
            publisher.publish(timeline: .stayDropped(stay))
        }
        let first = try await subscriber.messages.next(within: .seconds(20), "the trip")
        let second = try await subscriber.messages.next(within: .seconds(20), "the drop")
        #expect(first.payload.hasPrefix(#"{"class":"TRIP""#))
        #expect(second.topic == configuration.topics.timeline)
        #expect(
            second.payload.hasPrefix(#"{"class":"DROP","start":"\#(UTCCalendar.iso8601(stay.start))""#), "\(second)")
    }
}
