/// A region event as an OwnTracks `_type: "transition"` message.
///
/// OwnTracks names a region by `wtst`, the time its waypoint was made; a region from a
/// GeoJSON file has none, so `wtst` is a stable number made from the region's id, and
/// `rid` carries the id itself. `t` is `c` (a circular region) or `l` (a polygon,
/// located by position).
public struct OwnTracksTransition: Encodable, Sendable {
    public var type = "transition"
    /// `enter` or `leave`.
    public var event: String
    /// The region's name.
    public var desc: String
    public var rid: String
    public var wtst: Int
    public var lat: Double
    public var lon: Double
    /// The event's time, integer epoch seconds.
    public var tst: Int
    public var t: String
    public var tid: String
    public var createdAt: Int
    /// Horizontal accuracy, integer metres, when the fix had one.
    public var acc: Int?
    /// `simulated` for an event made from a simulated fix.
    public var source: String?

    public init(
        event: String, desc: String, rid: String, wtst: Int, lat: Double, lon: Double, tst: Int, t: String,
        tid: String, createdAt: Int, acc: Int? = nil, source: String? = nil
    ) {
        (self.event, self.desc, self.rid, self.wtst, self.lat, self.lon) = (event, desc, rid, wtst, lat, lon)
        (self.tst, self.t, self.tid, self.createdAt, self.acc, self.source) = (tst, t, tid, createdAt, acc, source)
    }

    package enum CodingKeys: String, CodingKey {
        case type = "_type", event, desc, rid, wtst, lat, lon, tst, t, tid, createdAt = "created_at", acc, source
    }
}
