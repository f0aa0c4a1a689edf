import Foundation
import LocationFormats
import LocationRegions
import LocationState

/// Region events and the regions. On ``queue``.
extension MQTTPublisher {
    /// A region event (not retained: an event, not a state): as a REGION line on the region
    /// topic and, when OwnTracks messages are on, as an OwnTracks `transition` on the
    /// OwnTracks base's `/event`.
    package func publish(transition event: RegionEvent, circular: Bool, at now: Date = Date()) {
        var line: [UInt8] = []
        event.appendJSON(to: &line)
        enqueue(topic: topics.region, payload: line, retain: false, at: now)
        guard configuration.publishesOwnTracks else { return }
        var message = OwnTracksTransition(
            event: event.kind.rawValue, desc: event.name, rid: event.region.rawValue,
            wtst: Self.waypointStamp(event.region.rawValue), lat: event.lat, lon: event.lon,
            tst: Int(saturating: event.time.timeIntervalSince1970.rounded(.down)), t: circular ? "c" : "l",
            tid: trackerID,
            createdAt: Int(saturating: now.timeIntervalSince1970.rounded(.down)))
        if let eph = event.eph, eph.isFinite { message.acc = Int(saturating: eph.rounded()) }
        if event.simulated { message.source = "simulated" }
        guard let payload = try? JSONLineEncoder().encode(message) else { return }
        enqueue(topic: topics.ownTracksEvent, payload: Array(payload.utf8), retain: false, at: now)
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

    /// The regions as an OwnTracks `waypoints` message, retained on the OwnTracks base's
    /// `/waypoints` when OwnTracks messages are on, so that the OwnTracks Recorder and apps
    /// know the regions transitions name; a polygon region has no waypoint (its
    /// transitions still go out, with `t` `l`).
    package func publish(waypoints regions: RegionSet, at now: Date = Date()) {
        guard configuration.publishesOwnTracks else { return }
        let waypoints: [OwnTracksWaypoints.Waypoint] = regions.regions.compactMap { region in
            guard case .circle(let lat, let lon, let radius) = region.geometry else { return nil }
            return .init(
                desc: region.name, lat: lat, lon: lon, rad: Int(radius.rounded()),
                tst: Self.waypointStamp(region.id.rawValue), rid: region.id.rawValue)
        }
        guard let payload = try? JSONLineEncoder().encode(OwnTracksWaypoints(waypoints: waypoints)) else { return }
        enqueue(topic: topics.ownTracksWaypoints, payload: Array(payload.utf8), retain: true, at: now)
    }
}
