import Foundation
import LocationFormats
import LocationProviders
import LocationState
import LocationTimeline

/// The location and the status. On ``queue``.
extension MQTTPublisher {
    /// A new fix (one per epoch): when the publishing policy lets it go given the motion,
    /// as a TPV line on the location topic and, when OwnTracks messages are on, as an
    /// OwnTracks location, both retained. Nothing when the location became unknown (the
    /// status says so), nor for a fix without a time: OwnTracks requires `tst`, and a
    /// position without a time is no history.
    package func publish(fix: Location?, at now: Date = Date()) {
        guard let fix, fix.hasPosition, fix.time != nil else { return }
        latestFix = fix
        guard configuration.policy.shouldPublish(fix, at: now, last: lastPublished, motion: motion) else { return }
        publishLocation(fix, at: now)
    }

    /// `fix` (with a position and a time) on the location topics, whatever the policy.
    package func publishLocation(_ fix: Location, at now: Date) {
        lastPublished = (fix, now)
        var line: [UInt8] = []
        fix.appendJSON(to: &line)
        enqueue(topic: topics.location, payload: line, retain: true, at: now)
        guard configuration.publishesOwnTracks,
            let payload = OwnTracksLocation(fix, trackerID: trackerID, createdAt: now).payload
        else { return }
        enqueue(topic: topics.ownTracks, payload: payload, retain: true, at: now)
    }

    /// A new status: published (retained, on the status topic) when its name changed;
    /// status changes go out whatever the publishing policy.
    package func publish(status: ProviderStatus, at now: Date = Date()) {
        guard status.name != lastStatus else { return }
        lastStatus = status.name
        enqueue(topic: topics.status, payload: MQTTStatusMessage.payload(status, at: now), retain: true, at: now)
    }

    /// A clean stop: `stopped` on the status topic, and the motion `unknown`, both
    /// retained, so that a subscriber that comes later (Home Assistant after a restart)
    /// does not see the device moving.
    package func publishStop(at now: Date = Date()) {
        lastStatus = "stopped"
        enqueue(topic: topics.status, payload: MQTTStatusMessage.stopped(at: now), retain: true, at: now)
        if motion != nil {
            enqueue(topic: topics.motion, payload: Array(Motion.unknown.jsonString.utf8), retain: true, at: now)
        }
    }

    /// Home Assistant MQTT discovery: the retained configs of the tracker and, with
    /// `motion`, of the moving sensor and today's distance.
    package func publishDiscovery(motion: Bool = false) {
        for entity in HomeAssistantEntity.all(for: configuration, topics: topics, motion: motion) {
            guard let payload = try? JSONLineEncoder().encode(entity) else { continue }
            enqueue(topic: entity.discoveryTopic, payload: Array(payload.utf8), retain: true)
        }
    }
}
