/// The device every entity of one locationd belongs to in Home Assistant, and where its
/// discovery configs come from (the `origin` Home Assistant logs and shows).
package struct HomeAssistantDevice: Encodable {
    /// Where the discovered configs come from.
    package struct Origin: Encodable {
        var name = "locationd"
        var swVersion: String

        enum CodingKeys: String, CodingKey { case name, swVersion = "sw_version" }
    }

    /// The device's id: the client id with anything but letters, digits and `-` as `_`.
    package var objectID: String
    /// `locationd HOST`.
    package var name: String
    package var manufacturer = "locationd"
    package var model = "GNSS location daemon"
    package var swVersion: String
    package var origin: Origin

    package init(_ configuration: MQTTConfiguration) {
        objectID = String(configuration.resolvedClientID.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        name = "locationd " + configuration.deviceName
        swVersion = configuration.softwareVersion
        origin = Origin(swVersion: configuration.softwareVersion)
    }

    /// Available unless locationd's status says `stopped` (a clean stop) or `offline` (its
    /// last will): the daemon is there, whether or not it has a fix.
    package static let availabilityTemplate =
        "{{ 'offline' if value_json.state in ['stopped', 'offline'] else 'online' }}"

    package enum CodingKeys: String, CodingKey {
        case identifiers, name, manufacturer, model, swVersion = "sw_version"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode([objectID], forKey: .identifiers)
        try container.encode(name, forKey: .name)
        try container.encode(manufacturer, forKey: .manufacturer)
        try container.encode(model, forKey: .model)
        try container.encode(swVersion, forKey: .swVersion)
    }
}
