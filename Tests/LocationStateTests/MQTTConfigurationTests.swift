import Foundation
import GRDB
import Testing

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
        #expect(plain.resolvedTopic == "owntracks/alice/pi")
        #expect(plain.statusTopic == "owntracks/alice/pi/status")
        let tls = try configured([("mqtt", "mqtts://[::1]"), ("mqtt-user", "bob")])
        #expect(tls.host == "::1")
        #expect(tls.port == 8883)
        #expect(tls.tls)
        #expect(tls.resolvedTopic == "owntracks/bob/pi")
        #expect(try configured([("mqtt", "mqtt://h"), ("mqtt", "off")]).isEnabled == false)
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
                == MQTTPublishingPolicy(minimumInterval: 30, minimumDistance: 100, stoppedInterval: 600))
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
