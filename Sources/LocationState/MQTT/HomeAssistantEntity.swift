/// One entity of Home Assistant's MQTT discovery (a retained config on
/// `homeassistant/COMPONENT/OBJECT_ID/config`): the tracker, the `moving` binary sensor, the
/// place or today's distance, all on one device, each unavailable while locationd's status says it
/// is stopped or gone (its clean stop or its last will).
///
/// The keys are those Home Assistant's MQTT integration reads (its `device_tracker`,
/// `binary_sensor` and `sensor` platforms, their shared availability, device and origin
/// schemas); what it does with each is in docs/mqtt.md.
package struct HomeAssistantEntity: Encodable {
    /// `device_tracker`, `binary_sensor` or `sensor`.
    package var component: String
    /// The config's object id: the device's, with the entity's suffix.
    package var objectID: String
    /// nil for the device's main entity: Home Assistant then names it after the device
    /// (written as `null`; an absent name would be the platform's default, "MQTT Device Tracker").
    package var name: String?
    package var uniqueID: String
    package var stateTopic: String?
    package var valueTemplate: String?
    package var jsonAttributesTopic: String?
    package var jsonAttributesTemplate: String?
    package var sourceType: String?
    package var deviceClass: String?
    package var unitOfMeasurement: String?
    package var stateClass: String?
    package var availabilityTopic: String
    package var availabilityTemplate = HomeAssistantDevice.availabilityTemplate
    package var device: HomeAssistantDevice
    package var origin: HomeAssistantDevice.Origin

    /// Where the config is published.
    package var discoveryTopic: String { "homeassistant/\(component)/\(objectID)/config" }

    /// A `device_tracker` whose position and attributes come from the TPV lines on `topic`.
    package static func tracker(_ device: HomeAssistantDevice, topics: MQTTTopics) -> Self {
        Self(
            component: "device_tracker", objectID: device.objectID, uniqueID: device.objectID,
            jsonAttributesTopic: topics.location, jsonAttributesTemplate: trackerAttributes, sourceType: "gps",
            availabilityTopic: topics.status, device: device, origin: device.origin)
    }

    /// `on` while the motion is `moving`, `off` while `stopped`, unknown otherwise.
    package static func moving(_ device: HomeAssistantDevice, topics: MQTTTopics) -> Self {
        Self(
            component: "binary_sensor", objectID: device.objectID + "_moving", name: "Moving",
            uniqueID: device.objectID + "_moving", stateTopic: topics.motion,
            valueTemplate: "{{ {'moving': 'ON', 'stopped': 'OFF'}.get(value_json.motion, 'None') }}",
            deviceClass: "moving", availabilityTopic: topics.status, device: device, origin: device.origin)
    }

    /// The name of the place the device is stopped at (the motion topic's `name`: the user's
    /// name for the place, their region's, or the nearest town's); unknown while moving, and
    /// while stopped where nothing names the place. Cut to the 255 characters a Home
    /// Assistant state may hold.
    package static func place(_ device: HomeAssistantDevice, topics: MQTTTopics) -> Self {
        Self(
            component: "sensor", objectID: device.objectID + "_place", name: "Place",
            uniqueID: device.objectID + "_place", stateTopic: topics.motion,
            valueTemplate:
                "{{ value_json.name[:255] if value_json.motion == 'stopped' and value_json.name is string else 'None' }}",
            availabilityTopic: topics.status, device: device, origin: device.origin)
    }

    /// The metres travelled today (the daemon's local day), as the distance topic says.
    package static func distanceToday(_ device: HomeAssistantDevice, topics: MQTTTopics) -> Self {
        Self(
            component: "sensor", objectID: device.objectID + "_distance_today", name: "Distance today",
            uniqueID: device.objectID + "_distance_today", stateTopic: topics.distance,
            valueTemplate: "{{ value_json.distance }}", deviceClass: "distance", unitOfMeasurement: "m",
            stateClass: "total_increasing", availabilityTopic: topics.status, device: device, origin: device.origin)
    }

    /// The entities discovery publishes for `configuration`: the tracker, and the moving
    /// sensor, the place and today's distance when the daemon tracks motion.
    package static func all(for configuration: MQTTConfiguration, topics: MQTTTopics, motion: Bool = true) -> [Self] {
        let device = HomeAssistantDevice(configuration)
        guard motion else { return [tracker(device, topics: topics)] }
        return [
            tracker(device, topics: topics), moving(device, topics: topics), place(device, topics: topics),
            distanceToday(device, topics: topics),
        ]
    }

    /// The tracker's attributes from a TPV line: Home Assistant's `latitude`, `longitude`,
    /// `gps_accuracy` and `altitude` (the names its tracker takes the position from) and
    /// `speed` (m/s), `course`, `time` and `source`. A member the fix does not have is left
    /// out, never rendered as 0 or as an undefined value: Home Assistant drops a whole
    /// message whose template fails, and takes a missing accuracy as 0.
    package static let trackerAttributes = [
        "{% set f = value_json %}{",
        "\"latitude\": {{ f.lat | tojson }}, \"longitude\": {{ f.lon | tojson }}",
        "{% if f.eph is number %}, \"gps_accuracy\": {{ f.eph | tojson }}{% endif %}",
        "{% if f.altMSL is number %}, \"altitude\": {{ f.altMSL | tojson }}",
        "{% elif f.altHAE is number %}, \"altitude\": {{ f.altHAE | tojson }}{% endif %}",
        "{% if f.speed is number %}, \"speed\": {{ f.speed | tojson }}{% endif %}",
        "{% if f.track is number %}, \"course\": {{ f.track | tojson }}{% endif %}",
        "{% if f.time is string %}, \"time\": {{ f.time | tojson }}{% endif %}",
        "{% if f.source is string %}, \"source\": {{ f.source | tojson }}{% endif %}",
        "}",
    ].joined()

    package enum CodingKeys: String, CodingKey {
        case name, uniqueID = "unique_id", stateTopic = "state_topic", valueTemplate = "value_template",
            jsonAttributesTopic = "json_attributes_topic", jsonAttributesTemplate = "json_attributes_template",
            sourceType = "source_type", deviceClass = "device_class", unitOfMeasurement = "unit_of_measurement",
            stateClass = "state_class", availabilityTopic = "availability_topic",
            availabilityTemplate = "availability_template", device, origin
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)  // null when nil
        try container.encode(uniqueID, forKey: .uniqueID)
        try container.encodeIfPresent(stateTopic, forKey: .stateTopic)
        try container.encodeIfPresent(valueTemplate, forKey: .valueTemplate)
        try container.encodeIfPresent(jsonAttributesTopic, forKey: .jsonAttributesTopic)
        try container.encodeIfPresent(jsonAttributesTemplate, forKey: .jsonAttributesTemplate)
        try container.encodeIfPresent(sourceType, forKey: .sourceType)
        try container.encodeIfPresent(deviceClass, forKey: .deviceClass)
        try container.encodeIfPresent(unitOfMeasurement, forKey: .unitOfMeasurement)
        try container.encodeIfPresent(stateClass, forKey: .stateClass)
        try container.encode(availabilityTopic, forKey: .availabilityTopic)
        try container.encode(availabilityTemplate, forKey: .availabilityTemplate)
        try container.encode(device, forKey: .device)
        try container.encode(origin, forKey: .origin)
    }
}
