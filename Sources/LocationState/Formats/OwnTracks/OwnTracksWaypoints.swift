/// Regions as an OwnTracks `_type: "waypoints"` message: circles only, as OwnTracks
/// waypoints are.
public struct OwnTracksWaypoints: Encodable, Sendable {
    public struct Waypoint: Encodable, Sendable {
        public var type = "waypoint"
        public var desc: String
        public var lat: Double
        public var lon: Double
        /// Radius, integer metres.
        public var rad: Int
        /// The stamp OwnTracks names the region by (see ``OwnTracksTransition/wtst``).
        public var tst: Int
        public var rid: String

        enum CodingKeys: String, CodingKey { case type = "_type", desc, lat, lon, rad, tst, rid }
    }

    public var type = "waypoints"
    public var waypoints: [Waypoint]

    enum CodingKeys: String, CodingKey { case type = "_type", waypoints }
}
