/// Home Assistant's MQTT discovery config for one of the timeline's entities: the
/// `moving` binary sensor or today's distance, on the same device as the tracker.
struct HomeAssistantSensor: Encodable {
    var name: String
    var uniqueID: String
    var stateTopic: String
    var valueTemplate: String
    var deviceClass: String
    var unitOfMeasurement: String?
    var stateClass: String?
    var device: HomeAssistantDiscovery.Device

    /// The component and the object ID's suffix it is published under
    /// (`homeassistant/COMPONENT/OBJECT_SUFFIX/config`).
    var component: String
    var suffix: String

    /// `moving` while the motion is, `OFF` while stopped, unknown otherwise.
    static func moving(objectID: String, deviceName: String, topic: String) -> Self {
        Self(
            name: "Moving", uniqueID: objectID + "_moving", stateTopic: topic,
            valueTemplate: "{{ {'moving': 'ON', 'stopped': 'OFF'}.get(value_json.motion, 'None') }}",
            deviceClass: "moving", device: HomeAssistantDiscovery.Device(identifiers: [objectID], name: deviceName),
            component: "binary_sensor", suffix: "moving")
    }

    /// The metres travelled today (UTC), as the distance topic says.
    static func distanceToday(objectID: String, deviceName: String, topic: String) -> Self {
        Self(
            name: "Distance today", uniqueID: objectID + "_distance_today", stateTopic: topic,
            valueTemplate: "{{ value_json.distance }}", deviceClass: "distance", unitOfMeasurement: "m",
            stateClass: "total_increasing",
            device: HomeAssistantDiscovery.Device(identifiers: [objectID], name: deviceName),
            component: "sensor", suffix: "distance_today")
    }

    enum CodingKeys: String, CodingKey {
        case name, uniqueID = "unique_id", stateTopic = "state_topic", valueTemplate = "value_template",
            deviceClass = "device_class", unitOfMeasurement = "unit_of_measurement", stateClass = "state_class",
            device
    }
}
