import Foundation
import LocationTestSupport
import Testing

@testable import LocationMQTT
@testable import LocationState

/// Home Assistant's discovery configs: the keys Home Assistant reads, all on one device
/// with its name, model and version, each with the availability on locationd's status and
/// the origin; nothing of how they are published.
@Suite(.timeLimit(.minutes(5)))
struct HomeAssistantEntityTests {
    static func object(_ entity: HomeAssistantEntity) throws -> [String: Any] {
        let text = try JSONLineEncoder().encode(entity)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static let entities: [HomeAssistantEntity] = {
        var configuration = MQTTConfiguration()
        configuration.deviceName = "van"
        configuration.clientID = "van.1"
        configuration.user = "me"
        configuration.softwareVersion = "1.2.3"
        return HomeAssistantEntity.all(for: configuration, topics: configuration.topics)
    }()

    @Test func theTrackerIsNamedAfterItsDeviceAndReadsLocationdsLocation() throws {
        let tracker = Self.entities[0]
        #expect(tracker.discoveryTopic == "homeassistant/device_tracker/van_1/config")
        let config = try Self.object(tracker)
        // `null`, not absent: Home Assistant then names the entity after the device.
        #expect(config.keys.contains("name") && config["name"] is NSNull)
        #expect(config["unique_id"] as? String == "van_1")
        #expect(config["json_attributes_topic"] as? String == "locationd/me/van/location")
        #expect(config["source_type"] as? String == "gps")
        #expect(config["state_topic"] == nil)
        let template = try #require(config["json_attributes_template"] as? String)
        // Nothing is defaulted to 0, every optional member is guarded.
        #expect(!template.contains("default"))
        for member in ["eph", "altMSL", "altHAE", "speed", "track"] {
            #expect(
                template.contains("{% if f.\(member) is number %}")
                    || template.contains("{% elif f.\(member) is number %}"))
        }
    }

    @Test(arguments: [0, 1, 2, 3])
    func everyEntityHasTheDeviceTheOriginAndTheAvailability(index: Int) throws {
        let config = try Self.object(Self.entities[index])
        let device = try #require(config["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["van_1"])
        #expect(device["name"] as? String == "locationd van")
        #expect(device["manufacturer"] as? String == "locationd")
        #expect(device["model"] as? String == "GNSS location daemon")
        #expect(device["sw_version"] as? String == "1.2.3")
        let origin = try #require(config["origin"] as? [String: Any])
        #expect(origin["name"] as? String == "locationd" && origin["sw_version"] as? String == "1.2.3")
        #expect(config["availability_topic"] as? String == "locationd/me/van/status")
        #expect(
            config["availability_template"] as? String
                == "{{ 'offline' if value_json.state in ['stopped', 'offline'] else 'online' }}")
    }

    @Test func theMovingSensor() throws {
        let sensor = Self.entities[1]
        let config = try Self.object(sensor)
        #expect(config["name"] as? String == "Moving")
        #expect(config["unique_id"] as? String == "van_1_moving")
        #expect(config["state_topic"] as? String == "locationd/me/van/motion")
        #expect(config["device_class"] as? String == "moving")
        #expect(sensor.discoveryTopic == "homeassistant/binary_sensor/van_1_moving/config")
    }

    /// The place: the motion's name while stopped, Home Assistant's unknown (`None`) otherwise.
    @Test func thePlace() throws {
        let sensor = try #require(Self.entities.first { $0.objectID == "van_1_place" })
        let config = try Self.object(sensor)
        #expect(config["name"] as? String == "Place")
        #expect(config["unique_id"] as? String == "van_1_place")
        #expect(config["state_topic"] as? String == "locationd/me/van/motion")
        #expect(config["device_class"] == nil && config["unit_of_measurement"] == nil)
        #expect(sensor.discoveryTopic == "homeassistant/sensor/van_1_place/config")
        #expect((config["value_template"] as? String)?.hasSuffix("else 'None' }}") == true)
    }

    @Test func theDistanceToday() throws {
        let sensor = try #require(Self.entities.first { $0.objectID == "van_1_distance_today" })
        let config = try Self.object(sensor)
        #expect(config["name"] as? String == "Distance today")
        #expect(config["unique_id"] as? String == "van_1_distance_today")
        #expect(config["state_topic"] as? String == "locationd/me/van/distance")
        #expect(config["unit_of_measurement"] as? String == "m")
        #expect(config["state_class"] as? String == "total_increasing")
        #expect(config["device_class"] as? String == "distance")
        #expect(config["value_template"] as? String == "{{ value_json.distance }}")
        #expect(sensor.discoveryTopic == "homeassistant/sensor/van_1_distance_today/config")
    }
}
