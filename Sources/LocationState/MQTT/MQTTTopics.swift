import Foundation
import LocationState

/// The topics locationd publishes to (docs/mqtt.md), worked out once from the settings.
///
/// OwnTracks messages (`_type` `location`, `transition`, `waypoints`) go under the OwnTracks
/// base topic, where the OwnTracks Recorder and Home Assistant's OwnTracks integration read
/// them; locationd's own messages (`{"class":…}` lines) under locationd's base topic, where
/// no OwnTracks reader takes them for a phone's.
public struct MQTTTopics: Sendable, Equatable {
    /// The OwnTracks base: `mqtt-topic`, else `owntracks/USER/DEVICE`; the location messages.
    public var ownTracks: String
    /// locationd's base: `mqtt-locationd-topic`, else `locationd/USER/DEVICE`.
    public var locationd: String

    /// OwnTracks `transition` messages, for region events.
    public var ownTracksEvent: String { ownTracks + "/event" }
    /// The regions as an OwnTracks `waypoints` message.
    public var ownTracksWaypoints: String { ownTracks + "/waypoints" }
    /// Each fix published, as a TPV line (retained); what Home Assistant's tracker reads.
    public var location: String { locationd + "/location" }
    /// The daemon's status (retained), its clean stop and its last will.
    public var status: String { locationd + "/status" }
    /// The motion (retained).
    public var motion: String { locationd + "/motion" }
    /// Each stay and trip as it closes.
    public var timeline: String { locationd + "/timeline" }
    /// Today's distance (retained).
    public var distance: String { locationd + "/distance" }
    /// Each region event, as a REGION line.
    public var region: String { locationd + "/region" }

    /// Every topic under the two bases.
    public var all: [String] {
        [ownTracks, ownTracksEvent, ownTracksWaypoints, location, status, motion, timeline, distance, region]
    }
}

extension MQTTConfiguration {
    /// The topics in use. The default bases name the Unix user when no MQTT user is set: a
    /// password database look-up, so the publisher works them out once.
    public var topics: MQTTTopics {
        let user = user ?? ProcessInfo.processInfo.userName
        return MQTTTopics(
            ownTracks: topic ?? "owntracks/\(user)/\(deviceName)",
            locationd: locationdTopic ?? "locationd/\(user)/\(deviceName)")
    }

    /// Every topic the publisher may publish to, each with the settings part that makes it
    /// (for an error); each must fit MQTT's limit. A new kind of message adds its topic here.
    package var publishedTopics: [(topic: String, part: SettingOrigins.Part)] {
        let topics = topics
        let ownTracksPart: SettingOrigins.Part = topic == nil ? .user : .ownTracksTopic
        let locationdPart: SettingOrigins.Part = locationdTopic == nil ? .user : .locationdTopic
        return [topics.ownTracks, topics.ownTracksEvent, topics.ownTracksWaypoints].map { ($0, ownTracksPart) }
            + [topics.location, topics.status, topics.motion, topics.timeline, topics.distance, topics.region]
            .map { ($0, locationdPart) }
            + (discovery
                ? HomeAssistantEntity.all(for: self, topics: topics).map { ($0.discoveryTopic, .clientID) } : [])
    }

    /// Every topic within MQTT's length: a message whose topic is too long could never be
    /// sent, and would hold up every message after it. The error names the setting that
    /// made the topic, and where it was set (`origin`, that of the setting applied last,
    /// when it was not set).
    package func checkPublishedTopics(origin current: String) throws(LocationError) {
        let topics = topics
        // The default bases hold the Unix user, which no setting checked.
        try Self.checkTopic(
            topics.ownTracks, origin: topicOrigins[topic == nil ? .user : .ownTracksTopic]?.origin ?? current)
        try Self.checkTopic(
            topics.locationd, origin: topicOrigins[locationdTopic == nil ? .user : .locationdTopic]?.origin ?? current)
        guard
            let (longest, part) = publishedTopics.max(by: { $0.topic.utf8.count < $1.topic.utf8.count }),
            longest.utf8.count > Self.maximumTopicLength
        else { return }
        let (origin, setting) = topicOrigins[part] ?? (current, part.defaultSetting)
        throw .usage(
            "\(origin): \(setting) makes the MQTT topic '\(longest.prefix(60).escapedForTerminal)…' \(longest.utf8.count) bytes long; MQTT allows at most \(Self.maximumTopicLength)"
        )
    }
}
