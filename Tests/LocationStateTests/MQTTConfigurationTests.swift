import Foundation
import GRDB
import LocationTestSupport
import LocationTimeline
import Testing

@testable import LocationMQTT
@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct MQTTConfigurationTests {
    private func configured(_ settings: [(String, String)]) throws(LocationError) -> MQTTConfiguration {
        var configuration = MQTTConfiguration()
        configuration.deviceName = "pi"
        for (key, value) in settings {
            _ = try configuration.apply(key: key, value: value, origin: "--\(key)")
        }
        return configuration
    }

    @Test func urlUserHostPortAndDefaults() throws {
        let plain = try configured([("mqtt", "mqtt://alice@broker.local:1884")])
        #expect(plain.host == "broker.local")
        #expect(plain.port == 1884)
        #expect(plain.user == "alice")
        #expect(!plain.tls)
        #expect(plain.topics.ownTracks == "owntracks/alice/pi")
        #expect(plain.topics.location == "locationd/alice/pi/location")
        #expect(plain.topics.status == "locationd/alice/pi/status")
        let tls = try configured([("mqtt", "mqtts://[::1]"), ("mqtt-user", "bob")])
        #expect(tls.host == "::1")
        #expect(tls.port == 8883)
        #expect(tls.tls)
        #expect(tls.topics.ownTracks == "owntracks/bob/pi")
        #expect(tls.topics.locationd == "locationd/bob/pi")
        #expect(try configured([("mqtt", "mqtt://h"), ("mqtt", "off")]).isEnabled == false)
    }

    /// OwnTracks messages go under the OwnTracks base, locationd's own under its base; the
    /// OwnTracks ones are on unless Home Assistant discovery is (whose tracker reads
    /// locationd's location), and on or off as `mqtt-owntracks` says.
    @Test func theTwoBasesAndWhetherOwnTracksMessagesGoOut() throws {
        let set = try configured([
            ("mqtt", "mqtt://h"), ("mqtt-topic", "owntracks/me/van"), ("mqtt-locationd-topic", "home/van"),
        ])
        #expect(
            set.topics.all == [
                "owntracks/me/van", "owntracks/me/van/event", "owntracks/me/van/waypoints", "home/van/location",
                "home/van/status", "home/van/motion", "home/van/timeline", "home/van/distance", "home/van/region",
            ])
        #expect(set.publishesOwnTracks)
        #expect(try !configured([("mqtt-discovery", "on")]).publishesOwnTracks)
        #expect(try configured([("mqtt-discovery", "on"), ("mqtt-owntracks", "on")]).publishesOwnTracks)
        #expect(try !configured([("mqtt-owntracks", "off")]).publishesOwnTracks)
    }

    /// A topic made too long by a setting from the file, found when `--mqtt` turns MQTT on:
    /// the error names the file's line and the setting, and says the length once. The
    /// discovery topics are checked too.
    @Test(arguments: [
        ("mqtt-topic", String(repeating: "a", count: 65_530), "mqtt-topic", 65_540),
        ("mqtt-locationd-topic", String(repeating: "b", count: 65_530), "mqtt-locationd-topic", 65_539),
        ("mqtt-client-id", String(repeating: "c", count: 65_500), "mqtt-client-id", 65_543),
    ])
    func aTopicTooLongNamesTheSettingThatMadeIt(key: String, value: String, setting: String, bytes: Int) throws {
        var configuration = MQTTConfiguration()
        configuration.deviceName = "pi"
        _ = try configuration.apply(key: "mqtt-discovery", value: "on", origin: "l.conf:1")
        _ = try configuration.apply(key: key, value: value, origin: "l.conf:2")
        #expect {
            _ = try configuration.apply(key: "mqtt", value: "mqtt://broker", origin: "--mqtt")
        } throws: { error in
            let message = (error as? LocationError)?.message ?? ""
            return message.hasPrefix("l.conf:2: \(setting) makes the MQTT topic '")
                && message.contains("' \(bytes) bytes long; MQTT allows at most 65535")
                && message.components(separatedBy: "bytes").count == 2
        }
    }

    @Test func otherKeysAreNotMine() throws {
        var configuration = MQTTConfiguration()
        #expect(try configuration.apply(key: "zooms", value: "14", origin: "x") == false)
    }

    @Test func policyBoundsAndKeepalive() throws {
        let configuration = try configured([
            ("mqtt-min-interval", "30s"), ("mqtt-min-distance", "100"), ("mqtt-outbox-max-messages", "500"),
            ("mqtt-outbox-max-age", "2d"), ("mqtt-keepalive", "5"), ("mqtt-discovery", "on"),
            ("mqtt-stopped-interval", "10m"),
        ])
        #expect(
            configuration.policy
                == PublishingPolicy(minimumInterval: 30, minimumDistance: 100, stoppedInterval: 600))
        #expect(configuration.outboxBounds == MQTTOutbox.Bounds(maximumMessages: 500, maximumAge: 172_800))
        #expect(configuration.keepAliveSeconds == 5)
        #expect(configuration.discovery)
    }

    @Test(arguments: [
        ("mqtt", "http://broker", "mqtt must be mqtt://"),
        ("mqtt", "mqtt://", "mqtt must be mqtt://"),
        ("mqtt", "mqtt://broker:0", "mqtt must be mqtt://"),
        ("mqtt", "mqtt://alice:secret@broker", "mqtt-password-file"),
        ("mqtt-topic", "owntracks/+/pi", "wildcard"),
        ("mqtt-topic", "owntracks/#", "wildcard"),
        ("mqtt-topic", String(repeating: "a", count: 65_536), "at most 65535"),
        ("mqtt-min-interval", "soon", "duration"),
        ("mqtt-stopped-interval", "-1", "duration"),
        ("mqtt-outbox-max-age", "1e305d", "duration"),
        ("mqtt-min-interval", "1e308h", "duration"),
        ("mqtt-keepalive", "0", "mqtt-keepalive"),
        ("mqtt-keepalive", "4", "from 5 to 65535"),
        ("mqtt-discovery", "maybe", "on or off"),
        ("mqtt-owntracks", "both", "mqtt-owntracks must be on or off"),
        ("mqtt-locationd-topic", "locationd/#", "wildcard"),
    ])
    func badValuesAreOneUsageLine(key: String, value: String, message: String) {
        #expect {
            _ = try configured([(key, value)])
        } throws: { error in
            guard let error = error as? LocationError else { return false }
            return error.kind == .usage && error.message.contains(message) && !error.message.contains("\n")
        }
    }
}
