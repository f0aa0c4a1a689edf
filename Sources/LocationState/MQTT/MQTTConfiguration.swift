import Foundation
import LocationState
import LocationTimeline

/// The MQTT settings of `locationd run`: flags and configuration file keys `mqtt`,
/// `mqtt-user`, `mqtt-password-file`, `mqtt-ca-file`, `mqtt-client-id`, `mqtt-topic`,
/// `mqtt-locationd-topic`, `mqtt-owntracks`, `mqtt-discovery`, `mqtt-min-interval`, `mqtt-min-distance`,
/// `mqtt-stopped-interval`, `mqtt-keepalive`, `mqtt-outbox-max-messages` and `mqtt-outbox-max-age`.
///
/// MQTT is off until `mqtt` names a broker: `mqtt://[USER@]HOST[:PORT]` (port 1883)
/// or `mqtts://...` (TLS, port 8883). The password is read from a file, never given
/// on the command line. The topics are in ``MQTTTopics``.
public struct MQTTConfiguration: Sendable, Equatable {
    /// The broker; nil when MQTT is off.
    public var host: String?
    public var port = 1883
    /// `mqtts://`: TLS, checked against ``caFile`` (or the system's CAs).
    public var tls = false
    public var user: String?
    public var passwordFile: String?
    public var caFile: String?
    public var clientID: String?
    /// The OwnTracks base topic (`mqtt-topic`); nil: `owntracks/USER/DEVICE`.
    public var topic: String?
    /// locationd's base topic (`mqtt-locationd-topic`); nil: `locationd/USER/DEVICE`.
    public var locationdTopic: String?
    /// Whether OwnTracks messages go out (`mqtt-owntracks`); nil: unless ``discovery`` is on.
    public var ownTracks: Bool?
    /// Home Assistant MQTT discovery (retained configs under `homeassistant/`).
    public var discovery = false
    public var policy = PublishingPolicy()
    public var outboxBounds = MQTTOutbox.Bounds()
    /// Seconds between keepalive pings; the broker sends the last will after 1.5 times this without a word.
    public var keepAliveSeconds = 60
    /// DEVICE in the default topics and the client id: the host name.
    public var deviceName: String = MQTTConfiguration.hostName()
    /// The version `locationd --version` prints, for Home Assistant's device and origin.
    public var softwareVersion = "unknown"
    /// Where the origin of each setting that names a topic came from, for an error that
    /// names the setting to change.
    package var topicOrigins = SettingOrigins()

    /// The longest topic MQTT allows, in bytes of UTF-8.
    public static let maximumTopicLength = 65_535

    public init() {}

    /// This machine's name up to its first dot (gethostname(2), no name service look-up).
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "locationd" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.split(separator: ".").first.map(String.init) ?? "locationd"
    }

    /// Whether MQTT is on.
    public var isEnabled: Bool { host != nil }

    /// Whether OwnTracks messages are published under ``MQTTTopics/ownTracks``: as
    /// `mqtt-owntracks` says, else when Home Assistant discovery is off (docs/mqtt.md).
    public var publishesOwnTracks: Bool { ownTracks ?? !discovery }

    /// The client id in use: set, or `locationd-DEVICE`.
    public var resolvedClientID: String { clientID ?? "locationd-\(deviceName)" }

    /// Applies one setting if it is an MQTT one; returns false for other keys.
    public mutating func apply(key: String, value: String, origin: String) throws(LocationError) -> Bool {
        switch key {
        case "mqtt":
            if value == "off" {
                host = nil
            } else {
                try parseURL(value, origin: origin)
            }
        case "mqtt-user":
            try Self.checkTopicLevel(value, name: key, origin: origin)
            user = value
            topicOrigins.note(.user, origin, setting: key)
        case "mqtt-password-file": passwordFile = value
        case "mqtt-ca-file": caFile = value
        case "mqtt-client-id":
            guard !value.isEmpty, value.utf8.count <= 65_535 else {
                throw .usage("\(origin): mqtt-client-id is too long")
            }
            clientID = value
            topicOrigins.note(.clientID, origin, setting: key)
        case "mqtt-topic":
            try Self.checkTopic(value, origin: origin)
            topic = value
            topicOrigins.note(.ownTracksTopic, origin, setting: key)
        case "mqtt-locationd-topic":
            try Self.checkTopic(value, origin: origin)
            locationdTopic = value
            topicOrigins.note(.locationdTopic, origin, setting: key)
        case "mqtt-owntracks":
            ownTracks = try Self.flag(value, name: key, origin: origin)
        case "mqtt-discovery":
            discovery = try Self.flag(value, name: key, origin: origin)
        case "mqtt-min-interval", "mqtt-min-distance", "mqtt-stopped-interval":
            try policy.apply(key: key, value: value, origin: origin)
        case "mqtt-keepalive":
            guard let seconds = Int(value.hasSuffix("s") ? String(value.dropLast()) : value),
                (5...65_535).contains(seconds)
            else {
                // libmosquitto refuses a keepalive under 5 s at every connection attempt.
                throw .usage(
                    "\(origin): mqtt-keepalive must be whole seconds from 5 to 65535, not \(value.quotedForMessage)")
            }
            keepAliveSeconds = seconds
        case "mqtt-outbox-max-messages":
            guard let count = Int(value), count >= 1 else {
                throw .usage(
                    "\(origin): mqtt-outbox-max-messages must be a whole number, 1 or more, not \(value.quotedForMessage)"
                )
            }
            outboxBounds.maximumMessages = count
        case "mqtt-outbox-max-age":
            outboxBounds.maximumAge = try PublishingPolicy.seconds(value, name: key, origin: origin)
        default:
            return false
        }
        if isEnabled { try checkPublishedTopics(origin: origin) }
        return true
    }

    /// `mqtt://[USER@]HOST[:PORT]` or `mqtts://...`, with `[IPV6]` hosts.
    private mutating func parseURL(_ text: String, origin: String) throws(LocationError) {
        let bad = LocationError.usage(
            "\(origin): mqtt must be mqtt://[USER@]HOST[:PORT], mqtts://[USER@]HOST[:PORT] or off, not \(text.quotedForMessage)"
        )
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            (tls, rest) = (false, text.dropFirst(7))
        } else if text.hasPrefix("mqtts://") {
            (tls, rest) = (true, text.dropFirst(8))
        } else {
            throw bad
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var user: String?
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
            guard let user, !user.isEmpty, !user.contains(":") else {
                throw .usage(
                    "\(origin): give the MQTT password in a file (mqtt-password-file), not in the URL \(text.quotedForMessage)"
                )
            }
        }
        var host = rest
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw bad }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad }
                portText = after.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:".contains($0) }) else { throw bad }
        var port = tls ? 8883 : 1883
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { throw bad }
            port = value
        }
        if let user { try Self.checkTopicLevel(user, name: "the MQTT user", origin: origin) }
        self.host = String(host)
        self.port = port
        if let user {
            self.user = user
            topicOrigins.note(.user, origin, setting: "the user in mqtt")
        }
    }

    /// A topic to publish to: not empty, at most 65,535 bytes, no wildcards, no NUL.
    package static func checkTopic(_ topic: String, origin: String) throws(LocationError) {
        guard !topic.isEmpty else { throw .usage("\(origin): the MQTT topic is empty") }
        guard topic.utf8.count <= maximumTopicLength else {
            throw .usage(
                "\(origin): the MQTT topic is \(topic.utf8.count) bytes; MQTT allows at most \(maximumTopicLength)")
        }
        guard !topic.utf8.contains(0) else {
            throw .usage(
                "\(origin): the MQTT topic \(topic.quotedForMessage) holds a NUL byte, which MQTT does not allow")
        }
        guard !topic.contains(where: { $0 == "+" || $0 == "#" }) else {
            throw .usage("\(origin): the MQTT topic \(topic.quotedForMessage) has a wildcard (+ or #); name one topic")
        }
    }

    private static func checkTopicLevel(_ level: String, name: String, origin: String) throws(LocationError) {
        guard !level.isEmpty, !level.contains(where: { "+#/\0".contains($0) }) else {
            throw .usage(
                "\(origin): \(name) \(level.quotedForMessage) cannot be part of an MQTT topic (+, #, / or a NUL byte)")
        }
    }

    /// `on` or `off` (also `true`, `yes`, `false`, `no`).
    private static func flag(_ value: String, name: String, origin: String) throws(LocationError) -> Bool {
        guard let flag = ["on": true, "true": true, "yes": true, "off": false, "false": false, "no": false][value]
        else { throw .usage("\(origin): \(name) must be on or off, not \(value.quotedForMessage)") }
        return flag
    }

}
