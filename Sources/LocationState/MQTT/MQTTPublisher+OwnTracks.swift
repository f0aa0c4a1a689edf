import Foundation

extension MQTTPublisher {
    /// A new value of `deviceLocation`: the fix as an OwnTracks location, retained,
    /// when the publishing policy lets it go; nothing when the location became
    /// unknown (the status says so). On ``queue``.
    func publish(fix: Location?, at now: Date = Date()) {
        guard let fix, fix.hasPosition, configuration.policy.shouldPublish(fix, at: now, last: lastPublished) else {
            return
        }
        let message = OwnTracksLocation(
            fix, trackerID: OwnTracksLocation.trackerID(forDevice: configuration.deviceName), createdAt: now)
        guard let payload = message.payload else { return }
        lastPublished = (fix, now)
        enqueue(topic: configuration.resolvedTopic, payload: payload, retain: true, at: now)
    }

    /// A new status: published (retained, on the status topic) when its name changed;
    /// status changes go out whatever the publishing policy. On ``queue``.
    func publish(status: ProviderStatus, at now: Date = Date()) {
        publish(state: status.name, source: status.source, lastFix: status.lastFix, at: now)
    }

    /// Publishes the state named `state` unless it is already the last one published. On ``queue``.
    func publish(state: String, source: FixSource?, lastFix: Date?, at now: Date = Date()) {
        guard state != lastStatus else { return }
        lastStatus = state
        let payload = OwnTracksStatus.payload(state: state, source: source, lastFix: lastFix, createdAt: now)
        enqueue(topic: configuration.statusTopic, payload: payload, retain: true, at: now)
    }

    /// Home Assistant MQTT discovery: a retained `device_tracker` config whose
    /// attributes are the OwnTracks messages (lat/lon/acc mapped to HA's names). On ``queue``.
    func publishDiscovery() {
        let id = configuration.resolvedClientID.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        let objectID = String(id)
        let topic = configuration.resolvedTopic
        let template =
            "{{ {'latitude': value_json.lat, 'longitude': value_json.lon, 'gps_accuracy': value_json.acc | default(0), 'altitude': value_json.alt, 'source': value_json.source} | tojson }}"
        let config: [String: Any] = [
            "name": configuration.deviceName,
            "unique_id": objectID,
            "json_attributes_topic": topic,
            "json_attributes_template": template,
            "source_type": "gps",
            "device": ["identifiers": [objectID], "name": configuration.deviceName, "manufacturer": "locationd"],
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]) else { return }
        enqueue(topic: "homeassistant/device_tracker/\(objectID)/config", payload: [UInt8](data), retain: true)
    }
}
