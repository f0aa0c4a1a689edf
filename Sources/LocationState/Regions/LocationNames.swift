import Foundation
import LocationState

/// What a place is called, offline: the name of the first region (in the file's order) that
/// holds it, else the nearest populated place of GeoNames with its region and country
/// (``PlaceNames``: "Oerlikon, Zurich, CH"); nil with neither.
public struct LocationNames: Sendable {
    /// The user's regions, read at each lookup (a region file reloaded on SIGHUP names what comes after).
    public var regions: @Sendable () -> RegionSet?
    /// The places, asked for at the first lookup a region does not answer (a daemon that
    /// names no stay never opens the file).
    public var places: @Sendable () -> PlaceNames?

    public init(
        regions: @escaping @Sendable () -> RegionSet? = { nil }, places: @escaping @Sendable () -> PlaceNames? = { nil }
    ) {
        self.regions = regions
        self.places = places
    }

    /// The name of the point.
    public func name(lat: Double, lon: Double) -> String? {
        if let region = regions()?.regions(containing: lat, lon).first { return region.name }
        return places()?.nearest(lat: lat, lon: lon)
    }
}
