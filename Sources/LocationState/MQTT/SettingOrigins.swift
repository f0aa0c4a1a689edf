/// Where the settings that make MQTT topics came from (`FILE:LINE`, `$VARIABLE`, `--flag`),
/// kept for error messages only: two configurations with the same values are equal
/// wherever their values came from.
package struct SettingOrigins: Sendable, Equatable {
    /// What a topic is made of.
    package enum Part: Sendable, Hashable {
        /// USER, in the default base topics.
        case user
        case ownTracksTopic
        case locationdTopic
        /// The client id, which names the discovery topics.
        case clientID

        /// The setting that sets this part, for a part no setting has set.
        var defaultSetting: String {
            switch self {
            case .user: "mqtt-user"
            case .ownTracksTopic: "mqtt-topic"
            case .locationdTopic: "mqtt-locationd-topic"
            case .clientID: "mqtt-client-id"
            }
        }
    }

    private var origins: [Part: (origin: String, setting: String)] = [:]

    /// Notes that `setting`, at `origin`, set `part`.
    package mutating func note(_ part: Part, _ origin: String, setting: String) { origins[part] = (origin, setting) }

    /// Where `part` was set and by which setting, if it was.
    package subscript(part: Part) -> (origin: String, setting: String)? { origins[part] }

    package static func == (_: Self, _: Self) -> Bool { true }
}
