/// Home Assistant's MQTT discovery config for a `device_tracker` whose attributes are
/// the OwnTracks location messages (lat/lon/acc mapped to Home Assistant's names).
struct HomeAssistantDiscovery: Encodable {
    struct Device: Encodable {
        var identifiers: [String]
        var name: String
        var manufacturer = "locationd"
    }

    var name: String
    var uniqueID: String
    /// The topic the OwnTracks location messages go to.
    var jsonAttributesTopic: String
    var jsonAttributesTemplate =
        "{{ {'latitude': value_json.lat, 'longitude': value_json.lon, 'gps_accuracy': value_json.acc | default(0), 'altitude': value_json.alt, 'source': value_json.source} | tojson }}"
    var sourceType = "gps"
    var device: Device

    init(deviceName: String, objectID: String, topic: String) {
        name = deviceName
        uniqueID = objectID
        jsonAttributesTopic = topic
        device = Device(identifiers: [objectID], name: deviceName)
    }

    enum CodingKeys: String, CodingKey {
        case name, uniqueID = "unique_id", jsonAttributesTopic = "json_attributes_topic",
            jsonAttributesTemplate = "json_attributes_template", sourceType = "source_type", device
    }
}
