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

        public init(desc: String, lat: Double, lon: Double, rad: Int, tst: Int, rid: String) {
            (self.desc, self.lat, self.lon, self.rad, self.tst, self.rid) = (desc, lat, lon, rad, tst, rid)
        }

        enum CodingKeys: String, CodingKey { case type = "_type", desc, lat, lon, rad, tst, rid }
    }

    public var type = "waypoints"
    public var waypoints: [Waypoint]

    public init(waypoints: [Waypoint]) { self.waypoints = waypoints }

    package enum CodingKeys: String, CodingKey { case type = "_type", waypoints }
}
