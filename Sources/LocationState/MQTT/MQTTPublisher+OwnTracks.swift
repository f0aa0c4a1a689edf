import Foundation

extension MQTTPublisher {
    /// A new fix (one per epoch): as an OwnTracks location, retained, when the publishing
    /// policy lets it go given the motion; nothing when the location became unknown (the
    /// status says so). On ``queue``.
    func publish(fix: Location?, at now: Date = Date()) {
        guard let fix, fix.hasPosition else { return }
        latestFix = fix
        guard configuration.policy.shouldPublish(fix, at: now, last: lastPublished, motion: motion) else { return }
        publishLocation(fix, at: now)
    }

    /// `fix` as an OwnTracks location, retained, whatever the policy. On ``queue``.
    func publishLocation(_ fix: Location, at now: Date) {
        guard let payload = OwnTracksLocation(fix, trackerID: trackerID, createdAt: now).payload else { return }
        lastPublished = (fix, now)
        enqueue(topic: locationTopic, payload: payload, retain: true, at: now)
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
        enqueue(topic: statusTopic, payload: payload, retain: true, at: now)
    }

    /// Home Assistant MQTT discovery: a retained `device_tracker` config; with `motion`,
    /// the `moving` binary sensor and today's distance too (`MQTTPublisher+Timeline`). On ``queue``.
    func publishDiscovery(motion: Bool = false) {
        let objectID = configuration.discoveryObjectID
        let config = HomeAssistantDiscovery(
            deviceName: configuration.deviceName, objectID: objectID, topic: locationTopic)
        guard let payload = try? JSONLineEncoder().encode(config) else { return }
        enqueue(topic: configuration.discoveryTopic, payload: Array(payload.utf8), retain: true)
        if motion { publishTimelineDiscovery() }
    }
}

extension MQTTPublisher {
    /// A region event as an OwnTracks `transition` on `TOPIC/event` (not retained: an
    /// event, not a state). On ``queue``.
    func publish(transition event: RegionEvent, circular: Bool, at now: Date = Date()) {
        var message = OwnTracksTransition(
            event: event.kind.rawValue, desc: event.name, rid: event.region.rawValue,
            wtst: Self.waypointStamp(event.region.rawValue), lat: event.lat, lon: event.lon,
            tst: Int(saturating: event.time.timeIntervalSince1970.rounded(.down)), t: circular ? "c" : "l", tid: trackerID,
            createdAt: Int(saturating: now.timeIntervalSince1970.rounded(.down)))
        if let eph = event.eph, eph.isFinite { message.acc = Int(saturating: eph.rounded()) }
        if event.simulated { message.source = "simulated" }
        guard let payload = try? JSONLineEncoder().encode(message) else { return }
        enqueue(topic: configuration.eventTopic, payload: Array(payload.utf8), retain: false, at: now)
    }

    /// FNV-1a of `id`, in 31 bits: the same number for the same region on every run.
    public static func waypointStamp(_ id: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash & 0x7FFF_FFFF)
    }
}

extension MQTTPublisher {
    /// The regions as an OwnTracks `waypoints` message, retained on `TOPIC/waypoints`,
    /// so that the OwnTracks Recorder and apps know the regions transitions name; a
    /// polygon region has no waypoint (its transitions still go out, with `t` `l`). On ``queue``.
    func publish(waypoints regions: RegionSet, at now: Date = Date()) {
        let waypoints: [OwnTracksWaypoints.Waypoint] = regions.regions.compactMap { region in
            guard case .circle(let lat, let lon, let radius) = region.geometry else { return nil }
            return .init(
                desc: region.name, lat: lat, lon: lon, rad: Int(radius.rounded()),
                tst: Self.waypointStamp(region.id.rawValue), rid: region.id.rawValue)
        }
        guard let payload = try? JSONLineEncoder().encode(OwnTracksWaypoints(waypoints: waypoints)) else { return }
        enqueue(topic: configuration.waypointsTopic, payload: Array(payload.utf8), retain: true, at: now)
    }
}
