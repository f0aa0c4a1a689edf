/// How an uplink target reads a location: the request format it takes.
public enum UplinkProtocol: String, Sendable, Hashable, CaseIterable {
    /// Traccar's OsmAnd protocol: one fix a request, the fields in the query of a POST
    /// (Traccar on 5055, Home Assistant's traccar webhook, PhoneTrack).
    case osmand
    /// The OwnTracks JSON of the MQTT payload, one fix a request (the Recorder's `/pub`,
    /// Traccar on 5144, Dawarich, Home Assistant's owntracks webhook, PhoneTrack).
    case owntracks
    /// Overland's batches of GeoJSON features (Dawarich, PhoneTrack, Reitti, GeoPulse).
    case overland
    /// The GPSLogger app's form body, one fix a request (Home Assistant's gpslogger webhook).
    case gpslogger
}
