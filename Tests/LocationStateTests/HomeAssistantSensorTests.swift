import Foundation
import Testing

@testable import LocationState

/// The timeline's Home Assistant discovery configs: the keys Home Assistant reads, on the
/// tracker's device, and nothing of how they are published.
@Suite(.timeLimit(.minutes(1)))
struct HomeAssistantSensorTests {
    static func object(_ sensor: HomeAssistantSensor) throws -> [String: Any] {
        let text = try JSONLineEncoder().encode(sensor)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theMovingSensor() throws {
        let sensor = HomeAssistantSensor.moving(objectID: "van", deviceName: "Van", topic: "owntracks/me/van/motion")
        let config = try Self.object(sensor)
        #expect(Set(config.keys) == ["name", "unique_id", "state_topic", "value_template", "device_class", "device"])
        #expect(config["unique_id"] as? String == "van_moving")
        #expect(config["state_topic"] as? String == "owntracks/me/van/motion")
        #expect(config["device_class"] as? String == "moving")
        let device = try #require(config["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["van"] && device["name"] as? String == "Van")
        #expect((sensor.component, sensor.suffix) == ("binary_sensor", "moving"))
    }

    @Test func theDistanceToday() throws {
        let sensor = HomeAssistantSensor.distanceToday(objectID: "van", deviceName: "Van", topic: "t/distance")
        let config = try Self.object(sensor)
        #expect(config["unique_id"] as? String == "van_distance_today")
        #expect(config["unit_of_measurement"] as? String == "m")
        #expect(config["state_class"] as? String == "total_increasing")
        #expect(config["device_class"] as? String == "distance")
        #expect(config["value_template"] as? String == "{{ value_json.distance }}")
        #expect((sensor.component, sensor.suffix) == ("sensor", "distance_today"))
    }
}
