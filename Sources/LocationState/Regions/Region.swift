/// A named place whose entering and leaving locationd reports: a circle or polygons.
///
/// CoreLocation calls it a monitored region, OwnTracks a waypoint, Home Assistant a zone.
public struct Region: Sendable, Identifiable {
    /// Stable across reloads; membership is kept by it.
    public let id: RegionID
    /// What to call the region in events and listings.
    public let name: String
    public let geometry: RegionGeometry

    public init(id: RegionID, name: String, geometry: RegionGeometry) {
        self.id = id
        self.name = name
        self.geometry = geometry
    }
}
